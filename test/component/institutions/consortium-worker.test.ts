import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { Job } from 'bullmq';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox, Sandbox } from '@svcws/sandbox';
import { WorkerConfig } from '../../../src/config';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { createLogger } from '../../../src/logger';
import { institutionQueueName } from '../../../src/institutions/institution-queue-name';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startCountingProxy } from '../worker/support/counting-proxy';
import type { CountingProxy } from '../worker/support/counting-proxy';

interface Member {
  code: string;
  /** The import job run on its platform (two platforms may hand out the same instance ids). */
  job: string;
  key: string;
  sandbox: Sandbox;
  running: RunningSandbox;
  proxy: CountingProxy;
  queue: Queue;
}

/** Two members, each with its own stand-in platform (own key, own code) behind a counting proxy. */
describe('a consortium on one worker: one client, queue and budget per member', () => {
  const base = uniqueQueueName('consortium-worker');
  const members: Member[] = [];
  const log = captureLogger();
  const connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
  let recordsDir: string;
  let worker: WorkerProcess;

  beforeAll(async () => {
    recordsDir = await mkdtemp(join(tmpdir(), 'svc-consortium-'));
    for (const [code, key, job] of [
      ['01AAA_INST', 'key-of-member-a', 'S7781'],
      ['01BBB_INST', 'key-of-member-b', 'S7782'],
    ] as const) {
      const sandbox = createSandbox({
        logger: createLogger({ level: 'silent', name: 'sandbox' }),
        config: {
          SANDBOX_JOB_DURATION_MS: 0,
          SANDBOX_API_KEYS: [key],
          SANDBOX_INSTITUTION_CODE: code,
          SANDBOX_RECORD_COUNT: 5,
        },
      });
      const running = await sandbox.start(0);
      const proxy = await startCountingProxy(running.url);
      const queue = new Queue(institutionQueueName(base, code), {
        connection: { url: TEST_REDIS_URL },
      });
      members.push({ code, key, job, sandbox, running, proxy, queue });
    }
    const file = join(recordsDir, 'institutions.yaml');
    await writeFile(
      file,
      `institutions:\n${members
        .map(
          (member, index) =>
            `  - code: ${member.code}\n    webhookSecret: secret-of-member-${String(index)}-0000\n` +
            `    apiKey: \${KEY_${String(index)}}\n    baseUrl: ${member.proxy.url}\n`,
        )
        .join('')}`,
    );
    const config = WorkerConfig.parse({
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: base,
      INSTITUTIONS_FILE: file,
      SVC_RATE_PER_SECOND: '1000',
      RECORDS_DIR: join(recordsDir, 'records'),
      WORKER_CONCURRENCY: '2',
    });
    worker = createWorkerProcess({
      config,
      logger: log.logger,
      connection,
      env: { KEY_0: members[0]?.key, KEY_1: members[1]?.key },
      tuning: { budgetPauseMs: 60_000 },
    });
    await Promise.all(worker.workers.map((one) => one.waitUntilReady()));
  });
  afterAll(async () => {
    await worker.close();
    await closeRedis(connection);
    for (const member of members) {
      await member.queue.close();
      await obliterateQueue(member.queue.name);
      await member.proxy.close();
      await member.running.close();
    }
    await rm(recordsDir, { recursive: true, force: true });
  });

  const member = (index: number): Member => {
    const found = members[index];
    if (found === undefined) throw new Error('no member');
    return found;
  };

  /** Runs an import on the member's platform and queues its job_end as the listener would. */
  async function queueImport(of: Member): Promise<{ jobId: string; instanceId: string }> {
    const job = of.sandbox.jobs().job(of.job);
    if (!job) throw new Error(`no ${of.job}`);
    const instance = of.sandbox.jobs().run(job, { submittedBy: 'sandbox', durationMs: 0 });
    while (!instance.end) await new Promise((resolve) => setTimeout(resolve, 5));
    const answer = await fetch(`${of.running.url}/sandbox/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'job_end', instance_id: instance.id }),
    });
    const { event } = (await answer.json()) as { event: Record<string, unknown> };
    const { jobId } = await createEventEnqueuer({
      queue: of.queue,
      dedupWindowHours: 1,
      attempts: 3,
      backoffDelayMs: 50,
    })(normalizeEvent(event));
    return { jobId, instanceId: instance.id };
  }

  async function settled(queue: Queue, jobId: string): Promise<Job> {
    for (;;) {
      const state = await queue.getJobState(jobId);
      const job = state === 'completed' || state === 'failed' ? await queue.getJob(jobId) : null;
      if (job) return job;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("calls each member's platform with its own key and files the records under its code", async () => {
    const a = await queueImport(member(0));
    const b = await queueImport(member(1));
    expect((await settled(member(0).queue, a.jobId)).finishedOn).toBeDefined();
    expect(await member(0).queue.getJobState(a.jobId)).toBe('completed');
    expect(
      await member(1).queue.getJobState((await settled(member(1).queue, b.jobId)).id ?? ''),
    ).toBe('completed');
    // Each platform accepts only its own member's key: a call with the other key would be a 401
    // and the job would not complete. And each platform was asked only about its own job.
    expect(
      member(0)
        .proxy.calls()
        .some((call) => call.includes('/S7781/')),
    ).toBe(true);
    expect(
      member(0)
        .proxy.allCalls()
        .some((call) => call.includes('/S7782/')),
    ).toBe(false);
    expect(
      member(1)
        .proxy.calls()
        .some((call) => call.includes('/S7782/')),
    ).toBe(true);
    expect(
      member(1)
        .proxy.allCalls()
        .some((call) => call.includes('/S7781/')),
    ).toBe(false);
    const records = join(recordsDir, 'records');
    expect(await readdir(join(records, '01AAA_INST', 'S7781'))).toEqual([a.instanceId]);
    expect(await readdir(join(records, '01BBB_INST', 'S7782'))).toEqual([b.instanceId]);
  });

  it("holds only the member answered 429: the other member's work goes on at once", async () => {
    member(0).proxy.fail({
      path: /./,
      times: 1000,
      status: 429,
      headers: { 'Retry-After': '20' },
      body: JSON.stringify({ errorsExist: true }),
    });
    const held = await queueImport(member(0));
    // Let A's first attempt meet the 429 and set its queue's rate limit.
    const limitedA = (): boolean =>
      log
        .lines()
        .some(
          (line) =>
            line.msg === 'rate limited by the service: waiting' &&
            line.institution === '01AAA_INST',
        );
    while (!limitedA()) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await member(0).queue.getRateLimitTtl()).toBeGreaterThan(10_000);

    const started = Date.now();
    const others = await Promise.all([1, 2, 3, 4].map(() => queueImport(member(1))));
    for (const other of others) await settled(member(1).queue, other.jobId);
    const tookMs = Date.now() - started;
    expect(await Promise.all(others.map((o) => member(1).queue.getJobState(o.jobId)))).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    // Far below A's 20 s Retry-After: B never waited for A's limit.
    expect(tookMs).toBeLessThan(5_000);
    // B's limiter key holds only its own 1 s window of job counts, never A's 20 s.
    expect(await member(1).queue.getRateLimitTtl()).toBeLessThanOrEqual(1000);
    expect(await member(0).queue.getRateLimitTtl()).toBeGreaterThan(10_000);
    expect(await member(0).queue.getJobState(held.jobId)).not.toBe('completed');
    const limited = log
      .lines()
      .filter((line) => line.msg === 'rate limited by the service: waiting');
    expect(limited.map((line) => line.institution)).toEqual(limited.map(() => '01AAA_INST'));
  });
});
