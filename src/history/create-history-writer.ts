import type { Redis } from 'ioredis';
import { claimBatch, ensureGroup, finishEntries, readBatch } from './outbox-batches';
import type { Batch } from './outbox-batches';
import { outboxCountKey } from './outbox-entry';
import { writerStateOf } from './history-writer-state';
import type { HistoryWriterOptions, WriterState } from './history-writer-state';
import { writeHistoryBatch } from './write-history-batch';

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
}

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

/** One transaction for the batch, then its entries finished; a failure forgets the known days. */
async function writeBatch(state: WriterState, batch: Batch): Promise<void> {
  if (batch.entryIds.length === 0) return;
  try {
    await writeHistoryBatch(state.settings.db, batch.records, state.knownDays);
  } catch (error) {
    state.knownDays.clear();
    throw error;
  }
  await finishEntries(state, batch.entryIds, batch.count);
}

/** The deliveries are behind and the oldest record is younger than `maxDeferMs`. */
async function deferring(state: WriterState): Promise<boolean> {
  const { busy, redis, streamKey, maxDeferMs } = state.settings;
  if (busy === undefined || !(await busy())) return false;
  const [oldest] = await redis.xrange(streamKey, '-', '+', 'COUNT', 1);
  // A stream id starts with the milliseconds it was added at.
  const addedAt = Number(oldest?.[0].split('-')[0] ?? Date.now());
  return Date.now() - addedAt < maxDeferMs;
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
          err: error instanceof Error ? error.message : String(error),
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
      // Redis itself unreachable: nothing to lose here, the records are in the stream.
      state.settings.logger?.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'history writer: Redis error',
      );
      if (state.running) await pause(1000);
    }
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
