import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { RedisClient } from '../../redis/redis-client';
import type { Logger } from '../../logger';
import { reconcileJobEnds } from './reconcile-job-ends';
import type { ReconcileReport, ReconcileTarget } from './reconcile-job-ends';
import { isConnectionError } from '../../redis/is-connection-error';
import { derivedQueueName } from '../../redis/hash-tag';
import { errField } from '../../err-field';

/** One institution and the event queue its recovered job_ends go to. */
export interface ScheduledTarget extends ReconcileTarget {
  readonly queueName: string;
}

export interface ReconcileScheduleOptions {
  /** The worker's connection; the schedule's queue lives beside the event queues. */
  readonly connection: RedisClient;
  /** QUEUE_NAME: the schedule's queue is `<QUEUE_NAME>-reconcile`. */
  readonly queueName: string;
  /** RECONCILE_INTERVAL_SECONDS in ms. */
  readonly everyMs: number;
  /** RECONCILE_OVERLAP_MINUTES in ms. */
  readonly overlapMs: number;
  /** DEDUP_WINDOW_HOURS in ms: a window never reaches back further than job_ends are remembered. */
  readonly maxBackMs: number;
  readonly targets: readonly ScheduledTarget[];
  readonly logger: Logger;
  /** Called after each institution's run with what it queued (the metric). */
  readonly onRecovered?: (institution: string | undefined, count: number) => void;
}

export interface ReconcileSchedule {
  /** Resolves once the scheduler is in Redis (rejects when Redis refused it). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** The scheduler's id: every worker of the fleet upserts the same one. */
const SCHEDULER_ID = 'reconcile-job-ends';

/** Where each institution's last complete scheduled run ended. */
function lastRunKey(eventQueueName: string): string {
  return `${eventQueueName}:reconcile-last`;
}

/**
 * The start of a scheduled run's window: where the last complete run ended (or one interval ago,
 * the first time), less the overlap, so an instance listed late is still found. A run stopped by
 * the budget or an error leaves the mark where it was: the next run covers its window again. Never
 * further back than `maxBackMs`: an older instance's claim has expired, and it would be taken
 * up again.
 */
export async function windowStart(
  redis: RedisClient,
  eventQueueName: string,
  options: { until: Date; everyMs: number; overlapMs: number; maxBackMs: number },
): Promise<Date> {
  const { until, everyMs, overlapMs, maxBackMs } = options;
  const last = await redis.get(lastRunKey(eventQueueName));
  const lastMs = last === null ? Number.NaN : Date.parse(last);
  const from = Number.isNaN(lastMs) ? until.getTime() - everyMs : lastMs;
  return new Date(Math.max(from - overlapMs, until.getTime() - maxBackMs));
}

/**
 * The reconciliation on BullMQ's job scheduler (docs/worker.md, "Reconciliation"): every worker
 * upserts the same scheduler, which makes one job per interval whatever the number of workers
 * (the job of a slot has one id), and one worker of the fleet takes it. A run goes through the
 * institutions one after the other; one institution's failure does not stop the others'.
 */
export function startReconcileSchedule(options: ReconcileScheduleOptions): ReconcileSchedule {
  const { connection, logger } = options;
  const name = derivedQueueName(options.queueName, '-reconcile');
  const queue = new Queue(name, { connection });
  queue.on('error', () => undefined);
  const ready = queue
    .upsertJobScheduler(
      SCHEDULER_ID,
      // The first run one interval after the first worker starts (BullMQ runs an `every`
      // scheduler at once otherwise); a scheduler already there keeps its slot.
      { every: options.everyMs, startDate: Date.now() + options.everyMs },
      { name: 'reconcile', opts: { removeOnComplete: 100, removeOnFail: 100 } },
    )
    .then(() => undefined);
  ready.catch((error: unknown) => {
    logger.warn({ err: errField(error) }, 'reconciliation not scheduled');
  });
  // Aborted on close: a run in flight ends at once (its window stays open for the next run)
  // instead of holding the worker's shutdown until its end.
  const shutdown = new AbortController();
  const worker = new Worker(name, () => runScheduled(options, shutdown.signal), {
    connection,
    concurrency: 1,
  });
  worker.on('error', (error) => {
    // Redis away is said once by the connection's watch (src/redis/watch-redis.ts), not per retry.
    if (isConnectionError(error)) return;
    logger.warn({ err: errField(error) }, 'reconciliation worker error');
  });
  return {
    ready,
    close: async () => {
      shutdown.abort();
      await worker.close();
      await queue.close();
    },
  };
}

/** The share of the interval a run may take at most, whatever RECONCILE_MAX_RUN_SECONDS says. */
const RUN_SHARE_OF_INTERVAL = 0.8;

async function runScheduled(
  options: ReconcileScheduleOptions,
  signal: AbortSignal,
): Promise<ReconcileReport[]> {
  const { connection, logger } = options;
  const until = new Date();
  const longest = options.everyMs * RUN_SHARE_OF_INTERVAL;
  const runId = `reconcile-${randomUUID()}`;
  const reports: ReconcileReport[] = [];
  for (const target of options.targets) {
    if (signal.aborted) break;
    const deadlineAt = until.getTime() + Math.min(target.limits.maxRunMs, longest);
    try {
      const since = await windowStart(connection, target.queueName, { ...options, until });
      const report = await reconcileJobEnds(target, {
        since,
        until,
        dryRun: false,
        runId,
        signal,
        deadlineAt,
      });
      if (report.complete) await connection.set(lastRunKey(target.queueName), until.toISOString());
      options.onRecovered?.(target.institution, report.recovered.length);
      target.logger.info(
        { runId, since: since.toISOString(), ...summaryOf(report) },
        'reconciliation run done',
      );
      reports.push(report);
    } catch (error) {
      logger.warn(
        {
          runId,
          institution: target.institution,
          err: errField(error),
        },
        'reconciliation run failed: the next run covers its window again',
      );
    }
  }
  return reports;
}

/** A report's figures for a log line or a CLI line. */
export function summaryOf(report: ReconcileReport): Record<string, unknown> {
  return {
    institution: report.institution,
    jobs: report.jobs.length,
    apiCalls: report.apiCalls,
    finished: report.finished,
    recovered: report.recovered.length,
    complete: report.complete,
    ...(report.stoppedBecause === undefined ? {} : { stoppedBecause: report.stoppedBecause }),
    ...(report.cuts.length === 0 ? {} : { cuts: report.cuts.map((one) => one.cap) }),
    ...(report.skippedIds === 0 ? {} : { skippedIds: report.skippedIds }),
  };
}
