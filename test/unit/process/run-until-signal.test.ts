import { runUntilSignal } from '../../../src/process/run-until-signal';
import type { ShutdownStep } from '../../../src/process/run-until-signal';
import { captureLogger } from '../../helpers/capture-logger';

function harness(
  steps: ShutdownStep[],
  extra: { timeoutMs?: number; onDeadline?: () => void } = {},
) {
  const log = captureLogger();
  const exits: number[] = [];
  const listeners = new Map<string, () => void>();
  runUntilSignal({
    logger: log.logger,
    steps,
    stoppingMessage: 'shutting down',
    deadlineMessage: 'deadline passed',
    exit: (code) => exits.push(code),
    onSignal: (signal, listener) => listeners.set(signal, listener),
    ...extra,
  });
  const send = (signal: string): void => listeners.get(signal)?.();
  return { log, exits, send, listeners };
}

const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the first exit code (jest's timeout bounds it). */
async function exited(exits: readonly number[]): Promise<void> {
  while (exits.length === 0) await tick(5);
}

describe('runUntilSignal', () => {
  it('closes the steps in order on SIGTERM, says stopped and exits 0', async () => {
    const order: string[] = [];
    const step = (name: string): ShutdownStep => ({
      name,
      close: async () => {
        await tick(5);
        order.push(name);
      },
    });
    const { log, exits, send, listeners } = harness([step('server'), step('queue'), step('redis')]);

    send('SIGTERM');
    send('SIGINT');
    await exited(exits);
    await tick(20);

    expect([...listeners.keys()]).toEqual(['SIGTERM', 'SIGINT']);
    expect(order).toEqual(['server', 'queue', 'redis']);
    expect(exits).toEqual([0]);
    expect(log.lines().map((line) => line.msg)).toEqual(['shutting down', 'stopped']);
    expect(log.lines()[0]).toMatchObject({ signal: 'SIGTERM' });
  });

  it('goes on past a step that may fail, and exits 1 on one that may not', async () => {
    const closed: string[] = [];
    const { log, exits, send } = harness([
      { name: 'queue', close: () => Promise.reject(new Error('gone')), mayFail: true },
      { name: 'worker', close: () => Promise.reject(new Error('stuck')) },
      { name: 'metrics', close: () => Promise.resolve(void closed.push('metrics')) },
    ]);

    send('SIGINT');
    await exited(exits);

    expect(exits).toEqual([1]);
    expect(closed).toEqual([]);
    expect(log.lines().map((line) => line.msg)).toEqual([
      'shutting down',
      'queue close failed',
      'close failed',
    ]);
  });

  it('exits 1 past the deadline, after its own last act', async () => {
    let cancelled = false;
    const { log, exits, send } = harness(
      [{ name: 'worker', close: () => new Promise<void>(() => undefined) }],
      { timeoutMs: 30, onDeadline: () => (cancelled = true) },
    );

    send('SIGTERM');
    await exited(exits);

    expect(cancelled).toBe(true);
    expect(exits).toEqual([1]);
    expect(log.lines().at(-1)).toMatchObject({ msg: 'deadline passed', timeoutMs: 30 });
  });
});
