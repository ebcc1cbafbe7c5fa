import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger';
import { createBudgetPause } from './budget-pause';
import type { BudgetPause } from './budget-pause';
import { decideFailure } from './failure-policy';
import type { Dispatch } from './handler-registry';
import { eventIdOf } from './handler-registry';

export interface CreateWorkerOptions {
  /** REDIS_URL */
  readonly redisUrl: string;
  /** QUEUE_NAME: the queue the listener fills. */
  readonly queueName: string;
  /** WORKER_CONCURRENCY: jobs processed at once by this process. */
  readonly concurrency: number;
  /** The handler registry (handler-registry.ts). */
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
  /** Start taking jobs at once (default) or only on `worker.run()`. */
  readonly autorun?: boolean;
}

export interface RunningWorker {
  readonly worker: Worker;
  /** Waits for jobs in flight, then closes the Redis connections. */
  close(): Promise<void>;
}

/**
 * A generous ceiling that never limits by itself: BullMQ checks the queue's rate-limit key (set by
 * `queue.rateLimit`, for a 429 or a budget pause) only on workers that have a limiter.
 */
const LIMITER = { max: 100_000, duration: 1000 } as const;

/**
 * The BullMQ worker of the event queue. Its connection follows BullMQ's production guide for
 * workers: `maxRetriesPerRequest: null`, so a Redis that goes away is waited for instead of
 * failing the blocking commands. Failures are decided by failure-policy.ts: retried with the
 * job's backoff, unrecoverable, or rate-limited without spending an attempt (429).
 */
export function createWorker(options: CreateWorkerOptions): RunningWorker {
  const { logger } = options;
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  // ioredis reconnects by itself; say so once per error instead of an unhandled 'error' event.
  connection.on('error', (error: Error) => {
    logger.warn({ err: error.message }, 'redis connection error');
  });
  // The queue handle is only for `rateLimit` (429, budget pause); the listener owns adding jobs.
  const queue = new Queue(options.queueName, { connection });
  queue.on('error', () => undefined);
  const budget: BudgetPause | undefined =
    options.remaining !== undefined && options.remainingFloor !== undefined
      ? createBudgetPause({
          floor: options.remainingFloor,
          pauseMs: options.budgetPauseMs ?? 60_000,
          remaining: options.remaining,
          rateLimit: (ms) => queue.rateLimit(ms),
          logger,
        })
      : undefined;

  const processor = async (job: Job, _token?: string, signal?: AbortSignal): Promise<unknown> => {
    try {
      return await options.dispatch(job, signal);
    } catch (error) {
      throw await failureToThrow(job, error);
    } finally {
      await budget?.check().catch((error: unknown) => {
        logger.warn({ err: error }, 'budget pause could not be set');
      });
    }
  };

  const failureToThrow = async (job: Job, error: unknown): Promise<Error> => {
    const decision = decideFailure(error);
    const fields = {
      eventId: eventIdOf(job.data),
      action: job.name,
      jobId: job.id,
      attempt: job.attemptsMade + 1,
      attempts: job.opts.attempts,
      decision: decision.kind,
      reason: decision.reason,
    };
    switch (decision.kind) {
      case 'rate-limit':
        logger.warn(
          { ...fields, delayMs: decision.delayMs },
          'rate limited by the service: waiting',
        );
        try {
          await queue.rateLimit(decision.delayMs);
        } catch (limitError) {
          // No rate limit could be set: fall back to an ordinary retry with backoff.
          logger.warn({ ...fields, err: limitError }, 'rate limit could not be set: retrying');
          return new Error(decision.reason, { cause: error });
        }
        return Worker.RateLimitError();
      case 'unrecoverable':
        logger.error(fields, 'event failed: not retried');
        return error instanceof UnrecoverableError
          ? error
          : new UnrecoverableError(decision.reason);
      case 'retry':
        logger.warn(fields, 'event failed: will be retried');
        // The failed reason names the code and its meaning where the service gave one.
        return error instanceof Error && decision.reason === error.message
          ? error
          : new Error(decision.reason, { cause: error });
    }
  };

  const worker = new Worker(options.queueName, processor, {
    connection,
    concurrency: options.concurrency,
    limiter: LIMITER,
    autorun: options.autorun ?? true,
    ...(options.lockDuration !== undefined ? { lockDuration: options.lockDuration } : {}),
    ...(options.stalledInterval !== undefined ? { stalledInterval: options.stalledInterval } : {}),
  });
  worker.on('error', (error) => {
    logger.warn({ err: error.message }, 'worker error');
  });
  worker.on('completed', (job) => {
    logger.debug({ eventId: eventIdOf(job.data), action: job.name, jobId: job.id }, 'event done');
  });

  return {
    worker,
    close: async () => {
      await worker.close();
      await queue.close();
      if (connection.status === 'ready') await connection.quit();
      else connection.disconnect();
    },
  };
}
