import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { WorkerConfig } from '../config';
import { CanonicalEvent } from '../events/canonical-event';
import {
  createHistoryRecorder,
  createHistoryWriter,
  historyStreamKey,
  openHistoryDatabase,
  outboxBacklog,
  pruneHistory,
  registerHistoryMetrics,
} from '../history';
import type { HistoryRecorder, HistoryWriter, SqlExecutor } from '../history';
import { isRecord } from '../is-record';
import type { Logger } from '../logger';
import type { EventStep } from '../worker/event-step';
import type { Dispatch } from '../worker/handler-registry';
import type { JobEndResult } from '../worker/job-end/create-job-end-handler';

export interface WorkerHistoryOptions {
  readonly config: WorkerConfig;
  /** The worker's connection: the outbox stream lives beside the event queue. */
  readonly connection: Redis;
  readonly logger: Logger;
  /** The worker's metrics registry: `svcws_history_backlog` and `svcws_history_dropped_total`. */
  readonly registry?: Registry;
  /** First wait before opening PostgreSQL again; doubles up to a minute. 5 s unless given. */
  readonly openRetryMs?: number;
  /** How often retention runs (docs/history.md: hourly). */
  readonly pruneEveryMs?: number;
  /**
   * An opened history database (the demo's PGlite, openHistoryDatabase({ embedded: true })) used
   * instead of DATABASE_URL; its owner closes it.
   */
  readonly database?: SqlExecutor;
  /**
   * The event queues this process works: while they hold more jobs than it takes at once
   * (WORKER_CONCURRENCY), the writer lets records wait rather than compete with the deliveries.
   */
  readonly eventQueues?: readonly string[];
  /** The writer's own timings (tests make them short). */
  readonly writer?: {
    readonly retryMs?: number;
    readonly blockMs?: number;
    readonly claimIdleMs?: number;
    readonly maxDeferMs?: number;
  };
}

/** The event history of one worker process (docs/history.md, "Wiring"). */
export interface WorkerHistory {
  readonly recorder: HistoryRecorder;
  /**
   * The event step recording the event when the worker takes its job, side by side with `step`
   * (the fan-out): the record's XADD is not one more round trip before the first delivery, and
   * it is in Redis before the job ends, as every record.
   */
  recordedWith(step: EventStep | undefined): EventStep;
  /** The dispatch with what each job_end came to recorded after its handler. */
  withJobEnd(dispatch: Dispatch): Dispatch;
  /** Stops the writer (the batch in hand is written or left pending), the timer, the database. */
  close(): Promise<void>;
}

/**
 * With DATABASE_URL: the recorder (one XADD per record to the outbox, never PostgreSQL) and, in
 * the background, the database opened and migrated, the writer draining the outbox into it, and
 * retention once an hour. PostgreSQL away at start delays only the writer: the records wait in
 * Redis and every delivery goes on. Without DATABASE_URL: undefined, nothing changes.
 */
export function startWorkerHistory(options: WorkerHistoryOptions): WorkerHistory | undefined {
  const { config, connection, logger } = options;
  const { DATABASE_URL: url, HISTORY_KEY: historyKey } = config;
  const given = options.database;
  if ((url === undefined && given === undefined) || historyKey === undefined) return undefined;
  const streamKey = historyStreamKey(config.QUEUE_NAME);
  const recorder = createHistoryRecorder({
    redis: connection,
    streamKey,
    historyKey,
    bodies: config.HISTORY_BODIES,
    maxBacklog: config.HISTORY_BACKLOG_MAX,
    logger,
  });
  const stopping = new AbortController();
  const behind = deliveriesBehind(options);
  let writer: HistoryWriter | undefined;
  let db: SqlExecutor | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  const started = (async () => {
    db = given ?? (await openUntilStopped(url ?? '', options, stopping.signal));
    if (db === undefined) return;
    writer = createHistoryWriter({
      redis: connection,
      db,
      streamKey,
      logger,
      busy: behind.busy,
      ...options.writer,
    });
    writer.start();
    pruneTimer = setInterval(
      () => void pruneNow(db, config, logger),
      options.pruneEveryMs ?? 3_600_000,
    );
    pruneTimer.unref();
    logger.info({ streamKey }, 'history writer started');
  })();
  if (options.registry !== undefined) {
    registerHistoryMetrics(options.registry, {
      // Before the database opens the records wait all the same: the stream's length.
      backlog: () => writer?.backlog() ?? outboxBacklog(connection, streamKey),
      dropped: recorder.dropped,
    });
  }
  return {
    recorder,
    recordedWith: (step) => async (event, jobId) => {
      const recording = recorder.event(event);
      try {
        return await step?.(event, jobId);
      } finally {
        await recording;
      }
    },
    withJobEnd: (dispatch) => withJobEndRecorded(dispatch, recorder),
    close: async () => {
      stopping.abort();
      await started;
      clearInterval(pruneTimer);
      await writer?.stop();
      await behind.close();
      if (given === undefined) await db?.close();
    },
  };
}

/**
 * Whether the deliveries are behind: the event queues' waiting jobs, more than the worker takes at
 * once. A burst then has the CPU to itself and the history catches up after it (docs/history.md).
 */
function deliveriesBehind(options: WorkerHistoryOptions): {
  busy: () => Promise<boolean>;
  close: () => Promise<void>;
} {
  const queues = (options.eventQueues ?? []).map(
    (name) => new Queue(name, { connection: options.connection }),
  );
  for (const queue of queues) queue.on('error', () => undefined);
  return {
    busy: async () => {
      const waiting = await Promise.all(queues.map((queue) => queue.getWaitingCount()));
      return waiting.reduce((sum, n) => sum + n, 0) >= options.config.WORKER_CONCURRENCY;
    },
    close: async () => {
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}

/** Opens (and migrates) the history's database, again with backoff until it answers or we stop. */
async function openUntilStopped(
  url: string,
  options: WorkerHistoryOptions,
  signal: AbortSignal,
): Promise<SqlExecutor | undefined> {
  const { config, logger } = options;
  let waitMs = options.openRetryMs ?? 5000;
  while (!signal.aborted) {
    try {
      const db = await openHistoryDatabase({ url, schema: config.HISTORY_SCHEMA });
      if (db === undefined || !signal.aborted) return db;
      await db.close();
      return undefined;
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error), retryInMs: waitMs },
        'history database not reachable: records wait in Redis',
      );
    }
    await sleep(waitMs, undefined, { signal }).catch(() => undefined);
    waitMs = Math.min(waitMs * 2, 60_000);
  }
  return undefined;
}

async function pruneNow(
  db: SqlExecutor | undefined,
  config: WorkerConfig,
  logger: Logger,
): Promise<void> {
  if (db === undefined) return;
  try {
    const result = await pruneHistory(db, {
      days: config.HISTORY_RETENTION_DAYS,
      patronDays: config.HISTORY_PATRON_RETENTION_DAYS,
    });
    logger.info({ dropped: result.dropped.length }, 'history retention applied');
  } catch (error) {
    logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'history retention failed',
    );
  }
}

/**
 * job_end's outcome after its handler (src/worker/job-end/create-job-end-handler.ts): the files
 * it stored, or the error once no attempt is left (an attempt that will be retried is not an outcome).
 */
function withJobEndRecorded(dispatch: Dispatch, recorder: HistoryRecorder): Dispatch {
  return async (job, signal) => {
    if (job.name.toLowerCase() !== 'job_end') return dispatch(job, signal);
    const event = CanonicalEvent.safeParse(job.data);
    if (!event.success) return dispatch(job, signal);
    try {
      const result = await dispatch(job, signal);
      await recorder.jobEnd({ event: event.data, ...jobEndOutcomeOf(result) });
      return result;
    } catch (error) {
      if (isLastAttempt(job, error)) {
        const message = error instanceof Error ? error.message : String(error);
        await recorder.jobEnd({ event: event.data, outcome: 'failed', error: message });
      }
      throw error;
    }
  };
}

function isLastAttempt(job: Job, error: unknown): boolean {
  return error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

function jobEndOutcomeOf(result: unknown): {
  outcome: string;
  counters?: Record<string, unknown>;
  files?: { path: string; bytes: number; records?: number }[];
} {
  if (!isRecord(result) || typeof result.outcome !== 'string') return { outcome: 'completed' };
  const { outcome, counters, files } = result as Partial<JobEndResult> & { outcome: string };
  return {
    outcome,
    ...(counters === undefined ? {} : { counters }),
    ...(files === undefined
      ? {}
      : {
          files: files.map((file) => ({
            path: file.file,
            bytes: file.bytes ?? 0,
            ...(file.records === undefined ? {} : { records: file.records }),
          })),
        }),
  };
}
