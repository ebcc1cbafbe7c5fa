import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Job, Telemetry } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { Logger } from '../logger';
import { createBudgetPause } from './budget-pause';
import type { BudgetPause } from './budget-pause';
import { decideFailure } from './failure-policy';
import type { Dispatch } from './handler-registry';
import { jobEventFields } from './event-run';
import { isConnectionError } from '../redis/is-connection-error';
import { OutageSafeWorker, isLockRenewalError } from './outage-safe-worker';
import { errField } from '../err-field';

export interface CreateWorkerOptions {
  /** Opened by the composition root (openWorkerConnection) and closed there, after `close()`. */
  readonly connection: RedisClient;
  /** QUEUE_NAME: the queue the listener fills. */
  readonly queueName: string;
  /** WORKER_CONCURRENCY: jobs processed at once by this process. */
  readonly concurrency: number;
  /** Each job's run: its stages and handler (event-run-stages.ts). */
  readonly dispatch: Dispatch;
  readonly logger: Logger;
  /**
   * Governance pause (budget-pause.ts): the latest `X-Svc-Api-Remaining` and SVC_REMAINING_FLOOR.
   * Without `remaining`, processing never pauses for the budget.
   */
  readonly remaining?: () => number | undefined;
  readonly remainingFloor?: number;
  /** How long a budget pause lasts before a job probes the budget again; 60 s unless given. */
  readonly budgetPauseMs?: number;
  /**
   * How long a job's lock lives without renewal; a worker that dies (SIGKILL) holds its jobs this
   * long at most. BullMQ's 30 s unless given (tests make it short).
   */
  readonly lockDuration?: number;
  /** How often stalled jobs (lock expired) are moved back to wait; BullMQ's 30 s unless given. */
  readonly stalledInterval?: number;
  /**
   * WORKER_MAX_STALLED_COUNT: how many times a job may lose its worker (killed, frozen past its
   * lock) and be taken again before it fails; a stall spends no attempt. BullMQ's 1 would fail a
   * job killed twice (a rolling deploy and an OOM kill) with its attempts unused.
   */
  readonly maxStalledCount?: number;
  /** Start taking jobs at once (default) or only on `worker.run()`. */
  readonly autorun?: boolean;
  /** BullMQ's telemetry (src/tracing/): each run continues its event's trace; none when off. */
  readonly telemetry?: Telemetry;
}

export interface RunningWorker {
  readonly worker: Worker;
  /** Waits for jobs in flight, then closes the worker and its queue handle (not the connection). */
  close(): Promise<void>;
}

/** DEFAULT of WORKER_MAX_STALLED_COUNT (src/config.ts). */
const DEFAULT_MAX_STALLED_COUNT = 5;

/** The abort reason of a run whose lock could not be renewed. */
const LOCK_LOST = 'lock lost: another worker may run this job';

/**
 * A generous ceiling that never limits by itself: BullMQ checks the queue's rate-limit key (set by
 * `queue.rateLimit`, for a 429 or a budget pause) only on workers that have a limiter.
 */
const LIMITER = { max: 100_000, duration: 1000 } as const;

/**
 * The BullMQ worker of the event queue. Failures are decided by failure-policy.ts: retried with
 * the job's backoff, unrecoverable, or rate-limited without spending an attempt (429). A run whose
 * lock cannot be renewed is aborted through its signal: the job may already run elsewhere, and two
 * runs of one job must not go on side by side.
 */
export function createWorker(options: CreateWorkerOptions): RunningWorker {
  const { logger, connection } = options;
  // The queue handle is only for `rateLimit` (429, budget pause); the listener owns adding jobs.
  const telemetry = options.telemetry === undefined ? {} : { telemetry: options.telemetry };
  const queue = new Queue(options.queueName, { connection, ...telemetry });
  queue.on('error', () => undefined);
  const budget = budgetPauseOf(options, queue);
  const { dispatch } = options;

  // Three parameters: BullMQ passes an AbortSignal only to a processor that declares it.
  const processor = async (job: Job, _token?: string, signal?: AbortSignal): Promise<unknown> => {
    try {
      return await dispatch(job, signal);
    } catch (error) {
      // A run cancelled from here (lost lock, shutdown deadline) did not fail: never unrecoverable.
      if (signal?.aborted) throw abortedRun(logger, job, signal, error);
      throw await failureToThrow({ logger, queue }, job, error);
    } finally {
      await budget?.check().catch((error: unknown) => {
        logger.warn({ err: errField(error) }, 'budget pause could not be set');
      });
    }
  };

  const worker = new OutageSafeWorker(options.queueName, processor, {
    connection,
    concurrency: options.concurrency,
    limiter: LIMITER,
    autorun: options.autorun ?? true,
    ...(options.lockDuration !== undefined ? { lockDuration: options.lockDuration } : {}),
    ...(options.stalledInterval !== undefined ? { stalledInterval: options.stalledInterval } : {}),
    maxStalledCount: options.maxStalledCount ?? DEFAULT_MAX_STALLED_COUNT,
    ...telemetry,
  });
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const jobId of jobIds) {
      logger.warn({ queueJobId: jobId }, 'job lock lost: aborting its run here');
      worker.cancelJob(jobId, LOCK_LOST);
    }
  });
  worker.on('error', (error) => {
    // Redis away is said once by the connection's watch (src/redis/watch-redis.ts), not per retry;
    // a lock BullMQ could not renew, by the lockRenewalFailed line above (it emits both).
    if (isConnectionError(error) || isLockRenewalError(error)) return;
    logger.warn({ err: errField(error) }, 'worker error');
  });

  return {
    worker,
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}

function budgetPauseOf(options: CreateWorkerOptions, queue: Queue): BudgetPause | undefined {
  if (options.remaining === undefined || options.remainingFloor === undefined) return undefined;
  return createBudgetPause({
    floor: options.remainingFloor,
    pauseMs: options.budgetPauseMs ?? 60_000,
    remaining: options.remaining,
    rateLimit: (ms) => queue.rateLimit(ms),
    logger: options.logger,
  });
}

/** What the processor throws for BullMQ, as failure-policy.ts decides, with one log line. */
async function failureToThrow(
  { logger, queue }: { logger: Logger; queue: Queue },
  job: Job,
  error: unknown,
): Promise<Error> {
  const decision = decideFailure(error);
  const fields = {
    ...jobEventFields(job),
    queueJobId: job.id,
    attempt: job.attemptsMade + 1,
    maxAttempts: job.opts.attempts,
    decision: decision.kind,
    reason: decision.reason,
  };
  switch (decision.kind) {
    case 'rate-limit':
      logger.warn({ ...fields, delayMs: decision.delayMs }, 'rate limited by the service: waiting');
      try {
        await queue.rateLimit(decision.delayMs);
      } catch (limitError) {
        // No rate limit could be set: fall back to an ordinary retry with backoff.
        logger.warn(
          { ...fields, err: errField(limitError) },
          'rate limit could not be set: retrying',
        );
        return new Error(decision.reason, { cause: error });
      }
      return Worker.RateLimitError();
    case 'unrecoverable':
      logger.error(fields, 'event failed: not retried');
      return error instanceof UnrecoverableError ? error : new UnrecoverableError(decision.reason);
    case 'retry':
      logger.warn(fields, 'event failed: will be retried');
      // The failed reason names the code and its meaning where the service gave one.
      return error instanceof Error && decision.reason === error.message
        ? error
        : new Error(decision.reason, { cause: error });
  }
}

function abortedRun(logger: Logger, job: Job, signal: AbortSignal, error: unknown): Error {
  const reason = `run aborted: ${String(signal.reason)}`;
  logger.warn(
    { ...jobEventFields(job), queueJobId: job.id, reason },
    'event run aborted: will run again',
  );
  return new Error(reason, { cause: error });
}
