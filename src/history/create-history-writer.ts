import type { RedisClient } from '../redis/redis-client';
import { claimBatch, ensureGroup, finishEntries, readBatch } from './outbox-batches';
import type { Batch } from './outbox-batches';
import { outboxCountKey } from './outbox-entry';
import { writerStateOf } from './history-writer-state';
import type { HistoryWriterOptions, WriterState } from './history-writer-state';
import { refusedForData } from './refused-for-data';
import { setAsideRecord } from './set-aside-record';
import { storableRecord } from './storable-record';
import { writeHistoryBatch } from './write-history-batch';
import type { StoredRecord } from './write-history-batch';
import { errField } from '../err-field';

export type { HistoryWriterOptions } from './history-writer-state';

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
  /** Records set aside since the writer was made: PostgreSQL refused them for their data. */
  setAside: () => number;
}

/** Records waiting in the outbox: the count the recorders keep, or entries written before it. */
export async function outboxBacklog(redis: RedisClient, streamKey: string): Promise<number> {
  const [count, length] = await Promise.all([
    redis.get(outboxCountKey(streamKey)),
    redis.xlen(streamKey),
  ]);
  return Math.max(Number(count ?? 0), length);
}

/** How long the oldest record has waited in the outbox (0 when it is empty). */
export async function outboxOldestAgeMs(redis: RedisClient, streamKey: string): Promise<number> {
  const [oldest] = await redis.xrange(streamKey, '-', '+', 'COUNT', 1);
  if (oldest === undefined) return 0;
  // A stream id starts with the milliseconds it was added at.
  return Math.max(0, Date.now() - Number(oldest[0].split('-')[0]));
}

/**
 * Drains the outbox stream into PostgreSQL: XREADGROUP batches, one transaction per batch, XACK
 * and XDEL only after COMMIT. While PostgreSQL is down the batch is retried with backoff and the
 * records wait in Redis; a writer killed mid-batch leaves its records pending, and any writer
 * takes them over after `claimIdleMs` (XAUTOCLAIM) — rows written twice are ignored (ON CONFLICT).
 */
export function createHistoryWriter(options: HistoryWriterOptions): HistoryWriter {
  const state = writerStateOf(options);
  return {
    start: () => {
      if (state.running) return;
      state.running = true;
      state.loop = runLoop(state);
    },
    stop: async () => {
      state.running = false;
      state.blocking?.disconnect();
      await state.loop;
      state.loop = undefined;
    },
    drainOnce: () => drainOnce(state),
    backlog: () => outboxBacklog(state.settings.redis, state.settings.streamKey),
    setAside: () => state.setAside,
  };
}

async function drainOnce(state: WriterState): Promise<number> {
  await ensureGroup(state);
  const claimed = await claimBatch(state);
  const batch =
    claimed.entryIds.length > 0 ? claimed : await readBatch(state, state.settings.redis, undefined);
  await writeBatch(state, batch);
  return batch.records.length;
}

/** The batch written (or its refused records set aside), then its entries finished. */
async function writeBatch(state: WriterState, batch: Batch): Promise<void> {
  if (batch.entryIds.length === 0) return;
  await writeOrSetAside(state, batch.records);
  await finishEntries(state, batch.entryIds, batch.count);
}

/**
 * One transaction for the records. Refused for their data (refused-for-data.ts), they are split
 * in two and each half written the same way, until the record at fault stands alone: it is set
 * aside, the rest written — a few transactions per bad record (log2 of the batch), none when all
 * is well. Any other failure (the database down) throws, and the whole batch is tried again:
 * halves already written are not doubled (ON CONFLICT DO NOTHING).
 */
async function writeOrSetAside(
  state: WriterState,
  records: readonly StoredRecord[],
): Promise<void> {
  if (records.length === 0) return;
  try {
    await writeHistoryBatch(state.settings.db, records, state.knownDays);
    return;
  } catch (error) {
    // A failed write may have been the partitions': look for them again next time.
    state.knownDays.clear();
    if (!refusedForData(error)) throw error;
    const [only] = records;
    if (records.length === 1 && only !== undefined) return setAside(state, only, error);
    const half = Math.ceil(records.length / 2);
    await writeOrSetAside(state, records.slice(0, half));
    await writeOrSetAside(state, records.slice(half));
  }
}

async function setAside(
  state: WriterState,
  stored: StoredRecord,
  refusal: Error & { code: string },
): Promise<void> {
  const record = storableRecord(stored.record);
  await setAsideRecord(state.settings.db, { id: stored.id, record }, refusal);
  state.setAside += 1;
  state.settings.logger?.error(
    {
      recordId: stored.id,
      recordType: record.type,
      ...(record.type === 'audit' ? {} : { eventId: record.eventId }),
      sqlstate: refusal.code,
    },
    'history record refused by PostgreSQL for its data: set aside',
  );
}

/** The deliveries are behind and the oldest record is younger than `maxDeferMs`. */
async function deferring(state: WriterState): Promise<boolean> {
  const { busy, redis, streamKey, maxDeferMs } = state.settings;
  if (busy === undefined || !(await busy())) return false;
  return (await outboxOldestAgeMs(redis, streamKey)) < maxDeferMs;
}

/** The batch written, again with backoff while it fails, until it is or the writer stops. */
async function writeUntilDone(state: WriterState, batch: Batch): Promise<void> {
  let wait = state.settings.retryMs;
  for (;;) {
    try {
      await writeBatch(state, batch);
      return;
    } catch (error) {
      state.settings.logger?.warn(
        {
          records: batch.records.length,
          err: errField(error),
          retryInMs: wait,
        },
        'history batch not written: kept in Redis, retrying',
      );
      if (!state.running) return;
      await pause(wait);
      wait = Math.min(wait * 2, 30_000);
      if (!state.running) return;
    }
  }
}

/** The loop: entries claimed now and then, else read as they come, unless the worker is busy. */
async function runLoop(state: WriterState): Promise<void> {
  const blocking = state.settings.redis.duplicate();
  // A copy has no listener of its own: Redis away is said once by the first connection's watch.
  blocking.on('error', () => undefined);
  state.blocking = blocking;
  let lastClaim = 0;
  while (state.running) {
    try {
      await ensureGroup(state);
      let batch: Batch | undefined;
      if (Date.now() - lastClaim >= state.settings.claimIdleMs / 2) {
        lastClaim = Date.now();
        batch = await claimBatch(state);
      }
      if ((batch === undefined || batch.entryIds.length === 0) && (await deferring(state))) {
        await pause(DEFER_STEP_MS);
        continue;
      }
      if (batch === undefined || batch.entryIds.length === 0) {
        batch = await readBatch(state, blocking, state.settings.blockMs);
      }
      await writeUntilDone(state, batch);
    } catch (error) {
      // stop() closing the blocking read mid-wait is a clean end, not a Redis error.
      if (!state.running) return;
      // Redis itself unreachable: nothing to lose here, the records are in the stream.
      state.settings.logger?.warn({ err: errField(error) }, 'history writer: Redis error');
      if (state.running) await pause(1000);
    }
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
