import { hostname } from 'node:os';
import type { RedisClient } from '../redis/redis-client';
import type { Logger } from '../logger';
import type { SqlExecutor } from './sql-executor';

export interface HistoryWriterOptions {
  /** Any connection; the writer opens its own blocking one from it (`duplicate()`). */
  readonly redis: RedisClient;
  readonly db: SqlExecutor;
  readonly streamKey: string;
  readonly group?: string;
  /** Unique per process: a killed writer's pending records are claimed by name-less idle time. */
  readonly consumer?: string;
  readonly batchSize?: number;
  readonly blockMs?: number;
  /** A record pending this long with another (dead) writer is taken over (XAUTOCLAIM). */
  readonly claimIdleMs?: number;
  /** First wait after a failed write; doubles up to 30 s while PostgreSQL stays down. */
  readonly retryMs?: number;
  /**
   * Whether the deliveries are behind (the worker's event queues hold more than it takes at
   * once): the writer then lets records wait, up to `maxDeferMs`, rather than compete with them.
   */
  readonly busy?: () => Promise<boolean>;
  /** The longest a record waits for a busy worker: older, it is written whatever the load. */
  readonly maxDeferMs?: number;
  readonly logger?: Logger;
}

/** The writer's settings, every default applied. */
export interface WriterSettings {
  readonly redis: RedisClient;
  readonly db: SqlExecutor;
  readonly streamKey: string;
  readonly group: string;
  readonly consumer: string;
  readonly batchSize: number;
  readonly blockMs: number;
  readonly claimIdleMs: number;
  readonly retryMs: number;
  readonly maxDeferMs: number;
  readonly busy: (() => Promise<boolean>) | undefined;
  readonly logger: Logger | undefined;
}

/** What the writer's steps share and change between batches. */
export interface WriterState {
  readonly settings: WriterSettings;
  /** The days whose partitions are known to exist; cleared when a write fails. */
  readonly knownDays: Set<string>;
  /** The connection blocking on XREADGROUP while the loop runs (its own, so others never wait). */
  blocking: RedisClient | undefined;
  running: boolean;
  loop: Promise<void> | undefined;
  /** The consumer group exists (created once per writer, or found BUSYGROUP). */
  groupReady: boolean;
  /** Records per entry lately (entries group several): entries are read by the batch's records. */
  perEntry: number;
  /** Records set aside since the writer was made (PostgreSQL refused them for their data). */
  setAside: number;
}

export function writerStateOf(options: HistoryWriterOptions): WriterState {
  return {
    settings: {
      redis: options.redis,
      db: options.db,
      streamKey: options.streamKey,
      group: options.group ?? 'history-writer',
      consumer: options.consumer ?? `${hostname()}-${String(process.pid)}`,
      batchSize: options.batchSize ?? 1000,
      blockMs: options.blockMs ?? 1000,
      claimIdleMs: options.claimIdleMs ?? 30_000,
      retryMs: options.retryMs ?? 1000,
      maxDeferMs: options.maxDeferMs ?? 10_000,
      busy: options.busy,
      logger: options.logger,
    },
    knownDays: new Set<string>(),
    blocking: undefined,
    running: false,
    loop: undefined,
    groupReady: false,
    perEntry: 1,
    setAside: 0,
  };
}
