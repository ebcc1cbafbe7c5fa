import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { institutionQueueName } from '../../../src/institutions/institution-queue-name';
import { runCli } from '../../../src/cli/run-cli';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { captureIo } from './cli-io-capture';

/** In a consortium each member has its own event queue; `--institution` picks it. */
describe('the CLI queue commands with --institution', () => {
  let base: string;
  let member: Queue;
  const env = (): Record<string, string> => ({ REDIS_URL: TEST_REDIS_URL, QUEUE_NAME: base });

  beforeAll(async () => {
    base = uniqueQueueName('cli-inst');
    member = new Queue(institutionQueueName(base, '01ABC_INST'), {
      connection: { url: TEST_REDIS_URL },
    });
    const enqueue = createEventEnqueuer({ queue: member, dedupWindowHours: 1, attempts: 2 });
    await enqueue({ id: 'abc-1', action: 'job_end', time: '2024-11-06T10:15:30Z' });
    const worker = new Worker(
      member.name,
      () => Promise.reject(new UnrecoverableError('refused for the test')),
      { connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null } },
    );
    await new Promise<void>((resolve) => worker.once('failed', () => resolve()));
    await worker.close();
  });
  afterAll(async () => {
    await member.close();
    await obliterateQueue(member.name);
    await obliterateQueue(base);
  });

  it('lists and replays the failed jobs of that member only', async () => {
    const other = captureIo(env());
    expect(await runCli(['failed'], other)).toBe(0);
    expect(other.stdout()).not.toContain('evt-abc-1');

    const listed = captureIo(env());
    expect(await runCli(['failed', '--institution', '01ABC_INST'], listed)).toBe(0);
    expect(listed.stdout()).toContain('evt-abc-1');
    expect(listed.stdout()).toContain(member.name);

    const replayed = captureIo(env());
    expect(await runCli(['replay', '--institution=01ABC_INST', 'abc-1'], replayed)).toBe(0);
    expect(await (await member.getJob('evt-abc-1'))?.getState()).toBe('waiting');
  });

  it('refuses a code that cannot be one, and the option on a command without a queue', async () => {
    const bad = captureIo(env());
    expect(await runCli(['failed', '--institution', '../x'], bad)).toBe(2);
    expect(bad.stderr()).toContain('--institution takes an institution code');

    const elsewhere = captureIo(env());
    expect(await runCli(['challenge', '--institution', '01ABC_INST'], elsewhere)).toBe(2);
    expect(elsewhere.stderr()).toContain('--institution applies to failed, show, replay');
  });
});
