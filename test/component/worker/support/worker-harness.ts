import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { Job } from 'bullmq';
import { WorkerConfig } from '../../../../src/config';
import { createEventEnqueuer } from '../../../../src/events/enqueue-event';
import { normalizeEvent } from '../../../../src/events/normalize-event';
import { createLogger } from '../../../../src/logger';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox, Sandbox, SandboxConfig } from '@svcws/sandbox';
import type { RunningWorker } from '../../../../src/worker/create-worker';
import { closeRedis } from '../../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../../src/redis/open-worker-connection';
import { createWorkerProcess } from '../../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../../src/processes/worker-process';
import type { HandlerEntry } from '../../../../src/worker/handler-entry';
import { captureLogger } from '../../../helpers/capture-logger';
import type { CapturedLogger } from '../../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../../helpers/redis';
import { startCountingProxy } from './counting-proxy';
import type { CountingProxy } from './counting-proxy';

const SANDBOX_KEY = 'sandbox-key';

export interface WorkerUnderTest {
  readonly sandbox: Sandbox;
  readonly running: RunningSandbox;
  readonly proxy: CountingProxy;
  readonly queue: Queue;
  readonly queueName: string;
  readonly recordsDir: string;
  readonly log: CapturedLogger;
  readonly config: WorkerConfig;
  /** Starts the worker (not started by default, so a test can arrange the queue first). */
  startWorker(): WorkerProcess;
  /** Runs a sandbox job to its end; returns the ended instance's id. */
  runJob(jobId: string, records?: number): Promise<string>;
  /** Starts a sandbox run that ends after `durationMs` (QUEUED, then RUNNING); returns its id. */
  startRun(jobId: string, durationMs: number, records?: number): string;
  /** Ends a started run now, COMPLETED_SUCCESS (as the sandbox's timer does for a job that succeeds). */
  finishRun(instanceId: string): void;
  /** The job_end event the sandbox sends for an ended instance, as the listener queues it. */
  jobEndEvent(instanceId: string): Promise<Record<string, unknown>>;
  /** Queues an event as the listener does (job id from the event id). */
  enqueue(
    event: Record<string, unknown>,
    attempts?: number,
    backoffDelayMs?: number,
  ): Promise<string>;
  /** Waits until the job is completed or failed (no timing assert: jest's timeout bounds it). */
  settled(jobId: string): Promise<Job>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly sandbox?: Partial<SandboxConfig>;
  readonly worker?: Record<string, string>;
  readonly budgetPauseMs?: number;
  /** The handler list; the one production uses (src/handlers/handler-entries.ts) unless given. */
  readonly handlers?: readonly HandlerEntry[];
  /** The captured log's level; info unless given. */
  readonly logLevel?: 'info' | 'debug';
}

/** The sandbox behind a counting proxy, a unique queue, a temp RECORDS_DIR and the real worker. */
export async function workerUnderTest(options: HarnessOptions = {}): Promise<WorkerUnderTest> {
  const silent = createLogger({ level: 'silent', name: 'sandbox' });
  const sandbox = createSandbox({
    logger: silent,
    config: { SANDBOX_JOB_DURATION_MS: 0, ...options.sandbox },
  });
  const running = await sandbox.start(0);
  const proxy = await startCountingProxy(running.url);
  const queueName = uniqueQueueName('worker');
  const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
  const recordsDir = await mkdtemp(join(tmpdir(), 'svc-records-'));
  const log = captureLogger(options.logLevel);
  const config = WorkerConfig.parse({
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
    SVC_BASE_URL: proxy.url,
    SVC_API_KEY: SANDBOX_KEY,
    SVC_RATE_PER_SECOND: '1000',
    RECORDS_DIR: recordsDir,
    WORKER_CONCURRENCY: '2',
    ...options.worker,
  });
  const workers: RunningWorker[] = [];
  const connection = openWorkerConnection(TEST_REDIS_URL, log.logger);

  return {
    sandbox,
    running,
    proxy,
    queue,
    queueName,
    recordsDir,
    log,
    config,
    startWorker: () => {
      const worker = createWorkerProcess({
        config,
        logger: log.logger,
        connection,
        env: {},
        tuning: { budgetPauseMs: options.budgetPauseMs ?? 60_000 },
        ...(options.handlers === undefined ? {} : { handlers: options.handlers }),
      });
      workers.push(worker);
      return worker;
    },
    runJob: async (jobId, records) => {
      const job = sandbox.jobs().job(jobId);
      if (!job) throw new Error(`no sandbox job ${jobId}`);
      const instance = sandbox.jobs().run(job, {
        submittedBy: 'sandbox',
        durationMs: 0,
        ...(records === undefined ? {} : { records }),
      });
      while (!instance.end) await new Promise((resolve) => setTimeout(resolve, 5));
      return instance.id;
    },
    startRun: (jobId, durationMs, records) => {
      const job = sandbox.jobs().job(jobId);
      if (!job) throw new Error(`no sandbox job ${jobId}`);
      return sandbox.jobs().run(job, {
        submittedBy: 'sandbox',
        durationMs,
        ...(records === undefined ? {} : { records }),
      }).id;
    },
    finishRun: (instanceId) => {
      const instance = sandbox.jobs().instance(instanceId);
      if (!instance) throw new Error(`no sandbox instance ${instanceId}`);
      instance.end = { status: 'COMPLETED_SUCCESS', time: new Date() };
    },
    jobEndEvent: async (instanceId) => {
      const answer = await fetch(`${running.url}/sandbox/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'job_end', instance_id: instanceId }),
      });
      const body = (await answer.json()) as { event: Record<string, unknown> };
      return body.event;
    },
    enqueue: async (event, attempts = 3, backoffDelayMs = 50) => {
      const canonical = normalizeEvent(event);
      const { jobId } = await createEventEnqueuer({
        queue,
        dedupWindowHours: 1,
        attempts,
        backoffDelayMs,
      })(canonical);
      return jobId;
    },
    settled: async (jobId) => {
      for (;;) {
        const state = await queue.getJobState(jobId);
        // Read the job only once it has settled: a copy read before would show its old attempts.
        const job = state === 'completed' || state === 'failed' ? await queue.getJob(jobId) : null;
        if (job) return job;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {
      for (const worker of workers) await worker.close();
      // A connection no worker used may still be connecting: a disconnect then leaves ioredis's
      // connect timer running. Once it answers, it is closed with QUIT like any other.
      await connection.ping();
      await closeRedis(connection);
      await queue.close();
      await obliterateQueue(queueName);
      await proxy.close();
      await running.close();
      await rm(recordsDir, { recursive: true, force: true });
    },
  };
}
