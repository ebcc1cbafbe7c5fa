import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger } from '../../../src/logger';
import { runCli } from '../../../src/cli/run-cli';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { jobEndSeenKey } from '../../../src/worker/job-end/job-end-seen';
import { recoveredEventId } from '../../../src/worker/job-end/recovered-job-end';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox, Sandbox } from '@svcws/sandbox';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { captureIo } from './cli-io-capture';

describe('npm run events -- reconcile', () => {
  let sandbox: Sandbox;
  let running: RunningSandbox;
  let queueName: string;
  let queue: Queue;
  let redis: Redis;
  let instanceId: string;

  beforeEach(async () => {
    sandbox = createSandbox({
      logger: createLogger({ level: 'silent', name: 'sandbox' }),
      config: { SANDBOX_JOB_DURATION_MS: 0, SANDBOX_API_KEYS: ['cli-key'] },
    });
    running = await sandbox.start(0);
    const job = sandbox.jobs().job('S7781');
    if (job === undefined) throw new Error('no S7781 in the sandbox');
    const instance = sandbox.jobs().run(job, { submittedBy: 'sandbox', durationMs: 0 });
    while (instance.end === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    instanceId = instance.id;
    queueName = uniqueQueueName('reconcile-cli');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    redis = new Redis(TEST_REDIS_URL);
  });

  afterEach(async () => {
    const keys = await redis.keys(`${queueName}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await queue.close();
    await obliterateQueue(queueName);
    await running.close();
  });

  const env = () => ({
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
    SVC_BASE_URL: running.url,
    SVC_API_KEY: 'cli-key',
    INSTITUTION_CODE: '01SVC_INST',
  });
  const recoveredJobId = () => jobIdForEvent(recoveredEventId(instanceId));

  it('lists what it would queue with --dry-run, and queues and claims nothing', async () => {
    const io = captureIo(env());

    const status = await runCli(
      ['reconcile', '--dry-run', '--since', new Date().toISOString()],
      io,
    );

    expect(io.stderr()).toBe('');
    expect(status).toBe(0);
    expect(io.stdout()).toContain('job_end to queue (dry run: nothing queued)');
    expect(io.stdout()).toContain(
      `S7781 instance ${instanceId} → event ${recoveredEventId(instanceId)}`,
    );
    expect(await queue.getJob(recoveredJobId())).toBeUndefined();
    expect(await redis.exists(jobEndSeenKey(queueName, instanceId))).toBe(0);
  });

  it('queues the job_end marked recovered, and finds nothing more on a second run', async () => {
    const first = captureIo(env());
    expect(await runCli(['reconcile', '--json'], first)).toBe(0);
    const report = JSON.parse(first.stdout()) as {
      recovered: number;
      found: { instanceId: string }[];
    }[];
    expect(report[0]?.found.map((one) => one.instanceId)).toContain(instanceId);

    const job = await queue.getJob(recoveredJobId());
    expect(job?.name).toBe('job_end');
    expect(job?.data).toMatchObject({
      id: recoveredEventId(instanceId),
      institution: { value: '01SVC_INST' },
      meta: { recovered: true },
    });

    const second = captureIo(env());
    expect(await runCli(['reconcile', '--json'], second)).toBe(0);
    const again = JSON.parse(second.stdout()) as { found: { instanceId: string }[] }[];
    expect(again[0]?.found).toEqual([]);
  });

  it('refuses a --since that is not an ISO time (exit 2)', async () => {
    const io = captureIo(env());
    expect(await runCli(['reconcile', '--since', 'yesterday'], io)).toBe(2);
    expect(io.stderr()).toContain('--since takes an ISO time');
  });
});
