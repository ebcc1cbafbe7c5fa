import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventJobOf } from '../../../../src/events/enqueue-event';
import type { EnqueueResult } from '../../../../src/events/enqueue-event';
import { QueueUnavailableError } from '../../../../src/events/queue-unavailable-error';
import { openSpool } from '../../../../src/events/spool/create-spool';
import type { Spool } from '../../../../src/events/spool/create-spool';
import { spoolOnFailure } from '../../../../src/events/spool/spool-on-failure';
import { captureLogger } from '../../../helpers/capture-logger';
import type { CapturedLogger } from '../../../helpers/capture-logger';
import { fixtureEvent } from '../../../helpers/fixture-events';

const SPOOLING = 'queue unavailable: spooling events to disk';

describe('the enqueue that spools when the queue does not answer', () => {
  let dir: string;
  let spool: Spool;
  let log: CapturedLogger;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spool-on-failure-'));
    log = captureLogger();
    spool = openSpool({ dir, maxBytes: 10_000_000, logger: log.logger });
  });
  afterEach(async () => {
    await spool.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('says once that it spools when the enqueues in flight all fail together, and again after the queue took one', async () => {
    // The queue answers according to `failing`, each enqueue after a tick (all in flight at once).
    let failing = true;
    const enqueue = async (): Promise<EnqueueResult> => {
      await new Promise((resolve) => setImmediate(resolve));
      if (failing) throw new QueueUnavailableError('Connection is closed.');
      return { jobId: 'queued', duplicate: false };
    };
    const spooling = spoolOnFailure({
      enqueue,
      jobOf: eventJobOf({ dedupWindowHours: 1, attempts: 1 }),
      queueName: 'q',
      spool,
      boundMs: 1000,
      connected: () => true,
      onSpooled: () => undefined,
      logger: log.logger,
    });
    const event = (id: string) => ({ ...fixtureEvent('loan'), id });
    const said = () => log.lines().filter((line) => line.msg === SPOOLING);

    const first = await Promise.all(
      Array.from({ length: 20 }, (_, i) => spooling(event(`10${String(i)}`))),
    );
    expect(first.every((result) => result.spooled === true)).toBe(true);
    expect(spool.stats().depth).toBe(20);
    expect(said().map((line) => line.eventId)).toEqual(['100']);

    // Redis back: the spool drains, an enqueue goes through; the next outage is said again.
    await spool.drain(async () => undefined);
    failing = false;
    expect(await spooling(event('200'))).toEqual({ jobId: 'queued', duplicate: false });
    failing = true;
    await Promise.all([spooling(event('300')), spooling(event('301'))]);
    expect(said().map((line) => line.eventId)).toEqual(['100', '300']);
  });

  it('says it spools once too when the connection is known to be away before any enqueue fails', async () => {
    let connected = false;
    let enqueued = 0;
    const spooling = spoolOnFailure({
      enqueue: () => {
        enqueued += 1;
        return Promise.resolve({ jobId: 'queued', duplicate: false });
      },
      jobOf: eventJobOf({ dedupWindowHours: 1, attempts: 1 }),
      queueName: 'q',
      spool,
      boundMs: 1000,
      connected: () => connected,
      onSpooled: () => undefined,
      logger: log.logger,
    });
    const event = (id: string) => ({ ...fixtureEvent('loan'), id });
    const said = () => log.lines().filter((line) => line.msg === SPOOLING);

    for (const id of ['400', '401', '402']) await spooling(event(id));
    expect(enqueued).toBe(0);
    expect(spool.stats().depth).toBe(3);
    expect(said().map((line) => [line.eventId, line.reason])).toEqual([
      ['400', 'queue_unavailable'],
    ]);

    // Back: while the spool still holds events, new ones go behind them, and nothing is said.
    connected = true;
    await spooling(event('403'));
    expect(enqueued).toBe(0);
    expect(spool.stats().depth).toBe(4);
    expect(said()).toHaveLength(1);
  });
});
