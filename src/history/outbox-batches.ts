import type { RedisClient } from '../redis/redis-client';
import { outboxCountKey, readOutboxEntry } from './outbox-entry';
import type { WriterState } from './history-writer-state';
import { redisScript } from './run-redis-script';
import type { StoredRecord } from './write-history-batch';

type StreamEntries = [string, string[]][];

/** Stream entries read, with the records they hold. */
export interface Batch {
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

/** Creates the writers' consumer group once (MKSTREAM); another writer's group is fine. */
export async function ensureGroup(state: WriterState): Promise<void> {
  if (state.groupReady) return;
  const { redis, streamKey, group } = state.settings;
  try {
    await redis.xgroup('CREATE', streamKey, group, '0', 'MKSTREAM');
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
  }
  state.groupReady = true;
}

/** Entries done with (written, set aside or unreadable): off the stream and off the count. */
export async function finishEntries(
  state: WriterState,
  entryIds: readonly string[],
  count: number,
): Promise<void> {
  if (entryIds.length === 0) return;
  const { redis, streamKey, group } = state.settings;
  await DONE(redis, [streamKey, outboxCountKey(streamKey)], [group, count, ...entryIds]);
}

/** Entries another (dead) writer left pending past `claimIdleMs`, taken over. */
export async function claimBatch(state: WriterState): Promise<Batch> {
  const { redis, streamKey, group, consumer, claimIdleMs } = state.settings;
  const answer = (await redis.xautoclaim(
    streamKey,
    group,
    consumer,
    claimIdleMs,
    '0-0',
    'COUNT',
    entriesToRead(state),
  )) as [string, StreamEntries, string[]?];
  // Entries deleted while pending (forget): their records were taken off the count then.
  const deleted = answer[2] ?? [];
  if (deleted.length > 0) await redis.xack(streamKey, group, ...deleted);
  return parseEntries(state, answer[1]);
}

/** New entries, waiting up to `blockMs` for one on `connection` when given. */
export async function readBatch(
  state: WriterState,
  connection: RedisClient,
  blockMs: number | undefined,
): Promise<Batch> {
  const { streamKey, group, consumer } = state.settings;
  const args: (string | number)[] = ['GROUP', group, consumer, 'COUNT', entriesToRead(state)];
  if (blockMs !== undefined) args.push('BLOCK', blockMs);
  const answer = (await connection.call('XREADGROUP', ...args, 'STREAMS', streamKey, '>')) as
    [string, StreamEntries][] | null;
  return parseEntries(state, answer?.[0]?.[1] ?? []);
}

/** Entries are read by the batch's records: as many as hold about `batchSize` records lately. */
function entriesToRead(state: WriterState): number {
  return Math.max(1, Math.round(state.settings.batchSize / state.perEntry));
}

/** The records of the entries read; an entry with none readable is logged and finished. */
async function parseEntries(state: WriterState, entries: StreamEntries): Promise<Batch> {
  const entryIds: string[] = [];
  const records: StoredRecord[] = [];
  const lostIds: string[] = [];
  let count = 0;
  let lost = 0;
  for (const [id, fields] of entries) {
    const entry = readOutboxEntry(id, fields);
    if (entry.unreadable > 0) {
      state.settings.logger?.error(
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
  await finishEntries(state, lostIds, lost);
  if (entries.length > 0) state.perEntry = Math.max(1, (count + lost) / entries.length);
  return { entryIds, records, count };
}
