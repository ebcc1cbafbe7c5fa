import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger';
import { outboxCountKey, readOutboxEntry } from './outbox-entry';
import { redisScript } from './run-redis-script';
import type { SqlExecutor } from './sql-executor';
import { writeHistoryBatch } from './write-history-batch';
import type { StoredRecord } from './write-history-batch';

export interface HistoryWriterOptions {
  /** Any connection; the writer opens its own blocking one from it (`duplicate()`). */
  readonly redis: Redis;
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

/** How often a deferring writer looks again at the deliveries. */
const DEFER_STEP_MS = 200;

export interface HistoryWriter {
  /** Starts the loop; resolves at once. */
  start: () => void;
  /** Ends the loop after the batch in hand (written, or left pending for the next writer). */
  stop: () => Promise<void>;
  /** Reads and writes one batch without blocking (claimed first); resolves with its size. */
  drainOnce: () => Promise<number>;
  /** Records waiting in the outbox (unwritten or unacknowledged). */
  backlog: () => Promise<number>;
}

type StreamEntries = [string, string[]][];

/** Stream entries read, with the records they hold. */
interface Batch {
  readonly entryIds: string[];
  readonly records: StoredRecord[];
  /** Records the entries count in the backlog. */
  readonly count: number;
}

/**
 * Acknowledges and deletes entries written (or unreadable) and takes their records off the count;
 * an empty stream sets the count to 0, so a count that drifted (entries deleted by hand) heals.
 */
const DONE = redisScript(`
redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 3))
redis.call('XDEL', KEYS[1], unpack(ARGV, 3))
local left = redis.call('DECRBY', KEYS[2], ARGV[2])
if left < 0 or redis.call('XLEN', KEYS[1]) == 0 then redis.call('SET', KEYS[2], 0) end
return left
`);

/** Records waiting in the outbox: the count the recorders keep, or entries written before it. */
export async function outboxBacklog(redis: Redis, streamKey: string): Promise<number> {
  const [count, length] = await Promise.all([
    redis.get(outboxCountKey(streamKey)),
    redis.xlen(streamKey),
  ]);
  return Math.max(Number(count ?? 0), length);
}

/**
 * Drains the outbox stream into PostgreSQL: XREADGROUP batches, one transaction per batch, XACK
 * and XDEL only after COMMIT. While PostgreSQL is down the batch is retried with backoff and the
 * records wait in Redis; a writer killed mid-batch leaves its records pending, and any writer
 * takes them over after `claimIdleMs` (XAUTOCLAIM) — rows written twice are ignored (ON CONFLICT).
 */
export function createHistoryWriter(options: HistoryWriterOptions): HistoryWriter {
  const { redis, db, streamKey, logger } = options;
  const group = options.group ?? 'history-writer';
  const consumer = options.consumer ?? `${hostname()}-${String(process.pid)}`;
  const batchSize = options.batchSize ?? 1000;
  const claimIdleMs = options.claimIdleMs ?? 30_000;
  const knownDays = new Set<string>();
  let blocking: Redis | undefined;
  let running = false;
  let loop: Promise<void> | undefined;
  let groupReady = false;
  /** Records per entry lately (entries group several): entries are read by the batch's records. */
  let perEntry = 1;
  const entriesToRead = (): number => Math.max(1, Math.round(batchSize / perEntry));

  const ensureGroup = async (): Promise<void> => {
    if (groupReady) return;
    try {
      await redis.xgroup('CREATE', streamKey, group, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
    }
    groupReady = true;
  };

  const done = async (entryIds: readonly string[], count: number): Promise<void> => {
    if (entryIds.length === 0) return;
    await DONE(redis, [streamKey, outboxCountKey(streamKey)], [group, count, ...entryIds]);
  };

  const claim = async (): Promise<Batch> => {
    const answer = (await redis.xautoclaim(
      streamKey,
      group,
      consumer,
      claimIdleMs,
      '0-0',
      'COUNT',
      entriesToRead(),
    )) as [string, StreamEntries, string[]?];
    // Entries deleted while pending (forget): their records were taken off the count then.
    const deleted = answer[2] ?? [];
    if (deleted.length > 0) await redis.xack(streamKey, group, ...deleted);
    return parseEntries(answer[1]);
  };

  const read = async (connection: Redis, blockMs: number | undefined): Promise<Batch> => {
    const args: (string | number)[] = ['GROUP', group, consumer, 'COUNT', entriesToRead()];
    if (blockMs !== undefined) args.push('BLOCK', blockMs);
    const answer = (await connection.call('XREADGROUP', ...args, 'STREAMS', streamKey, '>')) as
      [string, StreamEntries][] | null;
    return parseEntries(answer?.[0]?.[1] ?? []);
  };

  const parseEntries = async (entries: StreamEntries): Promise<Batch> => {
    const entryIds: string[] = [];
    const records: StoredRecord[] = [];
    const lostIds: string[] = [];
    let count = 0;
    let lost = 0;
    for (const [id, fields] of entries) {
      const entry = readOutboxEntry(id, fields);
      if (entry.unreadable > 0) {
        logger?.error(
          { streamId: id, records: entry.unreadable },
          'history record unreadable: dropped',
        );
      }
      if (entry.records.length === 0) {
        lostIds.push(id);
        lost += entry.count;
      } else {
        entryIds.push(id);
        records.push(...entry.records);
        count += entry.count;
      }
    }
    await done(lostIds, lost);
    if (entries.length > 0) perEntry = Math.max(1, (count + lost) / entries.length);
    return { entryIds, records, count };
  };

  const write = async (batch: Batch): Promise<void> => {
    if (batch.entryIds.length === 0) return;
    try {
      await writeHistoryBatch(db, batch.records, knownDays);
    } catch (error) {
      knownDays.clear();
      throw error;
    }
    await done(batch.entryIds, batch.count);
  };

  const drainOnce = async (): Promise<number> => {
    await ensureGroup();
    const claimed = await claim();
    const batch = claimed.entryIds.length > 0 ? claimed : await read(redis, undefined);
    await write(batch);
    return batch.records.length;
  };

  /** The deliveries are behind and the oldest record is younger than `maxDeferMs`. */
  const deferring = async (): Promise<boolean> => {
    if (options.busy === undefined || !(await options.busy())) return false;
    const [oldest] = await redis.xrange(streamKey, '-', '+', 'COUNT', 1);
    // A stream id starts with the milliseconds it was added at.
    const addedAt = Number(oldest?.[0].split('-')[0] ?? Date.now());
    return Date.now() - addedAt < (options.maxDeferMs ?? 10_000);
  };

  const writeUntilDone = async (batch: Batch): Promise<void> => {
    let wait = options.retryMs ?? 1000;
    for (;;) {
      try {
        await write(batch);
        return;
      } catch (error) {
        logger?.warn(
          {
            records: batch.records.length,
            err: error instanceof Error ? error.message : String(error),
            retryInMs: wait,
          },
          'history batch not written: kept in Redis, retrying',
        );
        if (!running) return;
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, 30_000);
        if (!running) return;
      }
    }
  };

  const run = async (): Promise<void> => {
    blocking = redis.duplicate();
    let lastClaim = 0;
    while (running) {
      try {
        await ensureGroup();
        let batch: Batch | undefined;
        if (Date.now() - lastClaim >= claimIdleMs / 2) {
          lastClaim = Date.now();
          batch = await claim();
        }
        if ((batch === undefined || batch.entryIds.length === 0) && (await deferring())) {
          await new Promise((resolve) => setTimeout(resolve, DEFER_STEP_MS));
          continue;
        }
        if (batch === undefined || batch.entryIds.length === 0) {
          batch = await read(blocking, options.blockMs ?? 1000);
        }
        await writeUntilDone(batch);
      } catch (error) {
        // stop() closing the blocking read mid-wait is a clean end, not a Redis error.
        if (!running) return;
        // Redis itself unreachable: nothing to lose here, the records are in the stream.
        logger?.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'history writer: Redis error',
        );
        if (running) await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  return {
    start: () => {
      if (running) return;
      running = true;
      loop = run();
    },
    stop: async () => {
      running = false;
      blocking?.disconnect();
      await loop;
      loop = undefined;
    },
    drainOnce,
    backlog: () => outboxBacklog(redis, streamKey),
  };
}
