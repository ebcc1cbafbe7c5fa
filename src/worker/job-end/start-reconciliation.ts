import { Queue } from 'bullmq';
import type { RedisClient } from '../../redis/redis-client';
import type { Registry } from 'prom-client';
import type { SvcClient } from '@svcws/client';
import type { WorkerConfig } from '../../config';
import { createEventEnqueuer } from '../../events/enqueue-event';
import type { Logger } from '../../logger';
import { registerReconcileCuts } from '../../metrics/reconcile-cuts';
import { registerRecoveredEvents } from '../../metrics/recovered-events';
import { createImportJobMatcher } from './import-job-matcher';
import { createJobEndSeen } from './job-end-seen';
import type { JobEndSeen } from './job-end-seen';
import { startReconcileSchedule } from './reconcile-schedule';
import type { ScheduledTarget } from './reconcile-schedule';

/** The keys one institution's reconciliation reads (with INSTITUTIONS_FILE, its member's). */
export type ReconcileConfig = Pick<
  WorkerConfig,
  | 'IMPORT_JOB_MATCH'
  | 'RECONCILE_JOB_IDS'
  | 'RECONCILE_MAX_PAGES'
  | 'RECONCILE_MAX_RECOVERED'
  | 'RECONCILE_MAX_RUN_SECONDS'
  | 'RECONCILE_BUDGET_PERCENT'
  | 'SVC_REMAINING_FLOOR'
  | 'DEDUP_WINDOW_HOURS'
  | 'JOB_ATTEMPTS'
>;

/** One event queue of the worker: its institution, configuration, client and logger. */
export interface InstitutionQueue {
  /** Its code: the member's, or INSTITUTION_CODE for the single institution. */
  readonly institution: string | undefined;
  readonly queueName: string;
  readonly config: ReconcileConfig;
  readonly client: Pick<SvcClient, 'paginate' | 'remaining'>;
  readonly logger: Logger;
}

/** Which instances' job_end was taken up, on this queue (job-end-seen.ts), for DEDUP_WINDOW_HOURS. */
export function jobEndSeenOf(
  connection: RedisClient,
  queue: Pick<InstitutionQueue, 'queueName' | 'config'>,
): JobEndSeen {
  return createJobEndSeen({
    redis: connection,
    queueName: queue.queueName,
    ttlSeconds: queue.config.DEDUP_WINDOW_HOURS * 3600,
  });
}

/** The reconciliation of one institution, and the queue handle its job_ends are added with. */
export function reconcileTargetOf(
  connection: RedisClient,
  queue: InstitutionQueue,
): { target: ScheduledTarget; close: () => Promise<void> } {
  const { config } = queue;
  const handle = new Queue(queue.queueName, { connection });
  handle.on('error', () => undefined);
  const target: ScheduledTarget = {
    institution: queue.institution,
    queueName: queue.queueName,
    client: queue.client,
    isImportJob: createImportJobMatcher(config.IMPORT_JOB_MATCH),
    jobIds: config.RECONCILE_JOB_IDS,
    remainingFloor: config.SVC_REMAINING_FLOOR,
    limits: {
      maxPages: config.RECONCILE_MAX_PAGES,
      maxRecovered: config.RECONCILE_MAX_RECOVERED,
      maxRunMs: config.RECONCILE_MAX_RUN_SECONDS * 1000,
      budgetPercent: config.RECONCILE_BUDGET_PERCENT,
    },
    seen: jobEndSeenOf(connection, queue),
    // The listener's job options (events/enqueue-event.ts): the same attempts, backoff, keeping.
    enqueue: createEventEnqueuer({
      queue: handle,
      dedupWindowHours: config.DEDUP_WINDOW_HOURS,
      attempts: config.JOB_ATTEMPTS,
    }),
    logger: queue.logger,
  };
  return { target, close: () => handle.close() };
}

/**
 * The worker's reconciliation of job_end (docs/worker.md, "Reconciliation"), every
 * RECONCILE_INTERVAL_SECONDS over each of its event queues; undefined when the interval is 0.
 */
export function startReconciliation(options: {
  readonly config: Pick<
    WorkerConfig,
    'QUEUE_NAME' | 'RECONCILE_INTERVAL_SECONDS' | 'RECONCILE_OVERLAP_MINUTES' | 'DEDUP_WINDOW_HOURS'
  >;
  readonly connection: RedisClient;
  readonly queues: readonly InstitutionQueue[];
  readonly logger: Logger;
  readonly registry?: Registry | undefined;
}): { close: () => Promise<void> } | undefined {
  const { config, connection } = options;
  if (config.RECONCILE_INTERVAL_SECONDS === 0) return undefined;
  const targets = options.queues.map((queue) => reconcileTargetOf(connection, queue));
  const onCut =
    options.registry === undefined ? undefined : registerReconcileCuts(options.registry);
  const schedule = startReconcileSchedule({
    connection,
    queueName: config.QUEUE_NAME,
    everyMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
    overlapMs: config.RECONCILE_OVERLAP_MINUTES * 60_000,
    maxBackMs: config.DEDUP_WINDOW_HOURS * 3_600_000,
    targets: targets.map((one) => ({ ...one.target, onCut })),
    logger: options.logger,
    ...(options.registry === undefined
      ? {}
      : { onRecovered: registerRecoveredEvents(options.registry) }),
  });
  return {
    close: async () => {
      await schedule.close();
      await Promise.all(targets.map((one) => one.close()));
    },
  };
}
