import type { RedisClient } from '../redis/redis-client';
import type { Registry } from 'prom-client';
import type { WorkerConfig } from '../config';
import type { Logger } from '../logger';
import type { EventStep } from '../worker/event-step';
import type { RunStage } from '../worker/event-run';
import { createHistoryRecorder } from './create-history-recorder';
import type { HistoryRecorder } from './create-history-recorder';
import { createHistoryWriter, outboxBacklog, outboxOldestAgeMs } from './create-history-writer';
import type { HistoryWriter } from './create-history-writer';
import { deliveriesBehind } from './deliveries-behind';
import { registerHistoryMetrics } from './history-metrics';
import { historyStreamKey } from './history-stream-key';
import { openHistoryUntilStopped } from './open-history-until-stopped';
import { pruneOnSchedule } from './prune-on-schedule';
import type { SqlExecutor } from './sql-executor';
import { journeyStage } from './journey-stage';
import { outcomeStage } from './outcome-stage';
import type { OutcomesOf } from './outcome-stage';

/** The history's timings (tests make them short) and an opened database (the demo's PGlite). */
export interface HistoryTuning {
  /** First wait before opening PostgreSQL again; doubles up to a minute. 5 s unless given. */
  readonly openRetryMs?: number;
  /** How often retention runs (docs/history.md: hourly). */
  readonly pruneEveryMs?: number;
  /**
   * An opened history database (the demo's PGlite, openHistoryDatabase({ embedded: true })) used
   * instead of DATABASE_URL; its owner closes it.
   */
  readonly database?: SqlExecutor;
  /** The writer's own timings (tests make them short). */
  readonly writer?: {
    readonly retryMs?: number;
    readonly blockMs?: number;
    readonly claimIdleMs?: number;
    readonly maxDeferMs?: number;
  };
}

export interface StartHistoryOptions extends HistoryTuning {
  readonly config: WorkerConfig;
  /** The worker's connection: the outbox stream lives beside the event queue. */
  readonly connection: RedisClient;
  readonly logger: Logger;
  /** The worker's metrics registry: the history's gauges and counters (docs/history.md). */
  readonly registry?: Registry;
  /**
   * The event queues this process works: while they hold more jobs than it takes at once
   * (WORKER_CONCURRENCY), the writer lets records wait rather than compete with the deliveries.
   */
  readonly eventQueues?: readonly string[];
  /** Per action, how a handler's result becomes the outcome kept (the handler entries' outcomeOf). */
  readonly outcomes?: OutcomesOf;
}

/** The event history of one worker process (docs/history.md, "Wiring"). */
export interface HistoryRuntime {
  readonly recorder: HistoryRecorder;
  /**
   * The event step recording the event when the worker takes its job, side by side with `step`
   * (the fan-out): the record's XADD is not one more round trip before the first delivery, and
   * it is in Redis before the job ends, as every record.
   */
  recordedWith(step: EventStep | undefined): EventStep;
  /** The run's stage recording what a job of an action with an outcome came to (outcome-stage.ts). */
  readonly outcome: RunStage | undefined;
  /**
   * The run's stage recording its take and end around the steps and the handler
   * (journey-stage.ts): the journey's queued, taken and finished.
   */
  readonly journey: RunStage;
  /** Stops the writer (the batch in hand is written or left pending), the timer, the database. */
  close(): Promise<void>;
}

/**
 * With DATABASE_URL: the recorder (one XADD per record to the outbox, never PostgreSQL) and, in
 * the background, the database opened and migrated, the writer draining the outbox into it, and
 * retention once an hour. PostgreSQL away at start delays only the writer: the records wait in
 * Redis and every delivery goes on. Without DATABASE_URL: undefined, nothing changes.
 */
export function startHistory(options: StartHistoryOptions): HistoryRuntime | undefined {
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
  const behind = deliveriesBehind(connection, options.eventQueues ?? [], config.WORKER_CONCURRENCY);
  const running: Running = {};
  const started = startWriting(options, { streamKey, busy: behind.busy }, running, stopping.signal);
  if (options.registry !== undefined) {
    registerHistoryMetrics(options.registry, {
      // Before the database opens the records wait all the same: the stream's length.
      backlog: () => running.writer?.backlog() ?? outboxBacklog(connection, streamKey),
      dropped: recorder.dropped,
      setAside: () => running.writer?.setAside() ?? 0,
      oldestAgeMs: () => outboxOldestAgeMs(connection, streamKey),
    });
  }
  return {
    recorder,
    recordedWith: (step) => recordedWith(recorder, step),
    outcome: outcomeStage(recorder, options.outcomes ?? new Map()),
    journey: journeyStage(recorder),
    close: async () => {
      stopping.abort();
      await started;
      running.stopPruning?.();
      await running.writer?.stop();
      await behind.close();
      if (given === undefined) await running.db?.close();
    },
  };
}

/** What runs once the database is open: filled in by startWriting. */
interface Running {
  db?: SqlExecutor;
  writer?: HistoryWriter;
  stopPruning?: () => void;
}

/**
 * In the background: the database opened (again until it answers, or the one given), the writer
 * started and retention scheduled; `running` holds them for the metrics and close().
 */
async function startWriting(
  options: StartHistoryOptions,
  outbox: { streamKey: string; busy: () => Promise<boolean> },
  running: Running,
  signal: AbortSignal,
): Promise<void> {
  const { config, connection, logger } = options;
  const db =
    options.database ??
    (await openHistoryUntilStopped({
      url: config.DATABASE_URL ?? '',
      schema: config.HISTORY_SCHEMA,
      firstWaitMs: options.openRetryMs ?? 5000,
      logger,
      signal,
    }));
  if (db === undefined) return;
  running.db = db;
  running.writer = createHistoryWriter({
    redis: connection,
    db,
    logger,
    ...outbox,
    ...options.writer,
  });
  running.writer.start();
  const retention = {
    days: config.HISTORY_RETENTION_DAYS,
    patronDays: config.HISTORY_PATRON_RETENTION_DAYS,
  };
  running.stopPruning = pruneOnSchedule(db, retention, options.pruneEveryMs ?? 3_600_000, logger);
  logger.info({ streamKey: outbox.streamKey }, 'history writer started');
}

function recordedWith(recorder: HistoryRecorder, step: EventStep | undefined): EventStep {
  return async (event, jobId) => {
    const recording = recorder.event(event);
    try {
      return await step?.(event, jobId);
    } finally {
      await recording;
    }
  };
}
