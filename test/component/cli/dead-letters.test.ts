import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { runCli } from '../../../src/cli/run-cli';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { captureIo } from './cli-io-capture';

const REASON = 'SvcApiError 400 40166410: a parameter value is invalid';

function event(id: string, action: string): CanonicalEvent {
  return { id, action, time: '2024-11-06T10:15:30.000Z' };
}

describe('failed, show and replay against a real queue', () => {
  let queueName: string;
  let queue: Queue;
  const env = (): Record<string, string> => ({ REDIS_URL: TEST_REDIS_URL, QUEUE_NAME: queueName });

  beforeEach(async () => {
    queueName = uniqueQueueName('cli');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    const enqueue = createEventEnqueuer({ queue, dedupWindowHours: 1, attempts: 3 });
    await enqueue(event('4410021', 'job_end'));
    await enqueue(event('4410022', 'job_end'));
    await enqueue(event('7731002', 'loan'));

    // A real worker fails the job_end events for good (as the worker does on a 400).
    const worker = new Worker(
      queueName,
      async (job) => {
        if (job.name === 'job_end') throw new UnrecoverableError(REASON);
        return 'done';
      },
      { connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null } },
    );
    await new Promise<void>((resolve) => {
      let settled = 0;
      const count = (): void => {
        settled += 1;
        if (settled === 3) resolve();
      };
      worker.on('failed', count);
      worker.on('completed', count);
    });
    await worker.close();
  });

  afterEach(async () => {
    await queue.close();
    await obliterateQueue(queueName);
  });

  it('lists the failed jobs with action, attempts and reason', async () => {
    const io = captureIo(env());

    const status = await runCli(['failed'], io);

    expect(status).toBe(0);
    expect(io.stdout()).toContain(`2 failed jobs in queue ${queueName}`);
    expect(io.stdout()).toMatch(/evt-4410021\s+job_end\s+1\/3\s+\S+Z\s+SvcApiError 400 40166410/);
    expect(io.stdout()).toMatch(/evt-4410022\s+job_end\s+1\/3/);
    expect(io.stdout()).not.toContain('7731002');
  });

  it('lists them as JSON with --json and honours --limit', async () => {
    const io = captureIo(env());

    const status = await runCli(['failed', '--json', '--limit', '1'], io);
    const answer = JSON.parse(io.stdout()) as {
      total: number;
      jobs: { jobId: string; eventId: string; failedReason: string; attemptsMade: number }[];
    };

    expect(status).toBe(0);
    expect(answer.total).toBe(2);
    expect(answer.jobs).toHaveLength(1);
    expect(answer.jobs[0]).toMatchObject({ failedReason: REASON, attemptsMade: 1 });
  });

  it('shows one job by event id or by job id, with its reason and event', async () => {
    const byEvent = captureIo(env());
    const byJob = captureIo(env());

    const statuses = [
      await runCli(['show', '4410021'], byEvent),
      await runCli(['show', 'evt-4410021'], byJob),
    ];

    expect(statuses).toEqual([0, 0]);
    expect(byEvent.stdout()).toBe(byJob.stdout());
    expect(byEvent.stdout()).toMatch(/^job\s+evt-4410021$/m);
    expect(byEvent.stdout()).toMatch(/^state\s+failed$/m);
    expect(byEvent.stdout()).toMatch(/^attempts\s+1 of 3$/m);
    expect(byEvent.stdout()).toContain(`reason    ${REASON}`);
    expect(byEvent.stdout()).toContain('"action": "job_end"');
    expect(byEvent.stdout()).toContain('UnrecoverableError');
  });

  it('says when there is no such job (exit 1)', async () => {
    const io = captureIo(env());

    const status = await runCli(['show', '999'], io);

    expect(status).toBe(1);
    expect(io.stderr()).toContain(`No job 999 in queue ${queueName}`);
  });

  it('replays one failed job: back to waiting with its attempts reset', async () => {
    const io = captureIo(env());

    const status = await runCli(['replay', '4410021'], io);
    const job = await queue.getJob('evt-4410021');

    expect(status).toBe(0);
    expect(io.stdout()).toContain('✓ replayed evt-4410021 (job_end): failed → waiting');
    expect(io.stdout()).toContain('1 of 1 failed job replayed');
    expect(await job?.getState()).toBe('waiting');
    expect(job?.attemptsMade).toBe(0);
    expect(await queue.getFailedCount()).toBe(1);
  });

  it('refuses to replay a job that did not fail (exit 1)', async () => {
    const io = captureIo(env());

    const status = await runCli(['replay', '7731002'], io);

    expect(status).toBe(1);
    expect(io.stderr()).toContain('Job evt-7731002 is completed, not failed');
  });

  it('replays every failed job with --all and reports each', async () => {
    const io = captureIo(env());

    const status = await runCli(['replay', '--all'], io);
    const again = captureIo(env());
    const secondStatus = await runCli(['replay', '--all'], again);

    expect(status).toBe(0);
    expect(io.stdout()).toContain('✓ replayed evt-4410021 (job_end)');
    expect(io.stdout()).toContain('✓ replayed evt-4410022 (job_end)');
    expect(io.stdout()).toContain('2 of 2 failed jobs replayed');
    expect(await queue.getJobCounts('failed', 'waiting')).toEqual({ failed: 0, waiting: 2 });
    expect(secondStatus).toBe(0);
    expect(again.stdout()).toContain('No failed jobs to replay');
  });

  it.each([
    [['replay'], 'replay: give one job id (or event id), or --all'],
    [['replay', 'evt-1', '--all'], 'replay: give either a job id or --all, not both'],
    [['show'], 'show: which job?'],
    [['failed', '--limit', 'ten'], 'failed: --limit must be a whole number'],
    [['failed', '--verbose'], "failed: Unknown option '--verbose'"],
    [['replay-all'], "Unknown command 'replay-all'"],
  ])('rejects the command line %p with exit 2', async (argv, message) => {
    const io = captureIo(env());

    const status = await runCli(argv, io);

    expect(status).toBe(2);
    expect(io.stderr()).toContain(message);
  });
});

describe('queue commands without Redis', () => {
  it('name the Redis they could not reach, never its password (exit 1)', async () => {
    const io = captureIo({ REDIS_URL: 'redis://admin:hunter2@127.0.0.1:1/0', QUEUE_NAME: 'x' });

    const status = await runCli(['failed'], io);

    expect(status).toBe(1);
    expect(io.stderr()).toContain(
      'cannot reach Redis at 127.0.0.1:1/0 (REDIS_URL): connect ECONNREFUSED',
    );
    expect(io.stderr()).not.toContain('hunter2');
  });

  it('name a bad QUEUE_NAME without echoing it', async () => {
    const io = captureIo({ REDIS_URL: TEST_REDIS_URL, QUEUE_NAME: 'no:colons' });

    const status = await runCli(['failed'], io);

    expect(status).toBe(1);
    expect(io.stderr()).toBe(
      'invalid configuration: QUEUE_NAME (letters, digits, _ and - only)\n' +
        '(keys are read from the environment; npm start, worker, console and events add the .env file of the directory they run in)',
    );
  });
});
