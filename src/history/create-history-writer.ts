import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger';
import { HistoryRecord } from './history-record';
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
  readonly logger?: Logger;
}

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

  const ensureGroup = async (): Promise<void> => {
    if (groupReady) return;
    try {
      await redis.xgroup('CREATE', streamKey, group, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
    }
    groupReady = true;
  };

  const claim = async (): Promise<StoredRecord[]> => {
    const answer = (await redis.xautoclaim(
      streamKey,
      group,
      consumer,
      claimIdleMs,
      '0-0',
      'COUNT',
      batchSize,
    )) as [string, StreamEntries, string[]?];
    const deleted = answer[2] ?? [];
    if (deleted.length > 0) await redis.xack(streamKey, group, ...deleted);
    return parseEntries(answer[1]);
  };

  const read = async (connection: Redis, blockMs: number | undefined): Promise<StoredRecord[]> => {
    const args: (string | number)[] = ['GROUP', group, consumer, 'COUNT', batchSize];
    if (blockMs !== undefined) args.push('BLOCK', blockMs);
    const answer = (await connection.call('XREADGROUP', ...args, 'STREAMS', streamKey, '>')) as
      [string, StreamEntries][] | null;
    return parseEntries(answer?.[0]?.[1] ?? []);
  };

  const parseEntries = (entries: StreamEntries): StoredRecord[] => {
    const records: StoredRecord[] = [];
    for (const [id, fields] of entries) {
      const parsed = parseRecord(fields);
      if (parsed === undefined) {
        logger?.error({ streamId: id }, 'history record unreadable: dropped');
        void redis.xack(streamKey, group, id).then(() => redis.xdel(streamKey, id));
      } else records.push({ id, record: parsed });
    }
    return records;
  };

  const write = async (batch: StoredRecord[]): Promise<void> => {
    if (batch.length === 0) return;
    try {
      await writeHistoryBatch(db, batch, knownDays);
    } catch (error) {
      knownDays.clear();
      throw error;
    }
    const ids = batch.map((entry) => entry.id);
    await redis
      .multi()
      .xack(streamKey, group, ...ids)
      .xdel(streamKey, ...ids)
      .exec();
  };

  const drainOnce = async (): Promise<number> => {
    await ensureGroup();
    const claimed = await claim();
    const batch = claimed.length > 0 ? claimed : await read(redis, undefined);
    await write(batch);
    return batch.length;
  };

  const writeUntilDone = async (batch: StoredRecord[]): Promise<void> => {
    let wait = options.retryMs ?? 1000;
    for (;;) {
      try {
        await write(batch);
        return;
      } catch (error) {
        logger?.warn(
          {
            records: batch.length,
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
        let batch: StoredRecord[] = [];
        if (Date.now() - lastClaim >= claimIdleMs / 2) {
          lastClaim = Date.now();
          batch = await claim();
        }
        if (batch.length === 0) batch = await read(blocking, options.blockMs ?? 1000);
        await writeUntilDone(batch);
      } catch (error) {
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
    backlog: () => redis.xlen(streamKey),
  };
}

function parseRecord(fields: string[]): HistoryRecord | undefined {
  const index = fields.indexOf('r');
  const text = index >= 0 ? fields[index + 1] : undefined;
  if (text === undefined) return undefined;
  try {
    const result = HistoryRecord.safeParse(JSON.parse(text));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}
