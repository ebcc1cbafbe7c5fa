import type { RedisClient } from '../redis/redis-client';
import type { Logger } from '../logger';
import { ONE_RECORD, RECORD_GROUP, outboxCountKey } from './outbox-entry';
import { redisScript } from './run-redis-script';
import { errField } from '../err-field';

/** Records in one XADD at most (a burst of 64 jobs makes about 64 × 3 within one tick). */
const GROUP_MAX = 256;

/**
 * One XADD unless `max` records already wait (counted in the count key; the stream's length too,
 * for entries written before it was kept): a full outbox drops the newest, counted by the caller.
 */
const APPEND = redisScript(`
local waiting = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), redis.call('XLEN', KEYS[1]))
if waiting >= tonumber(ARGV[1]) then return false end
redis.call('INCRBY', KEYS[2], ARGV[2])
return redis.call('XADD', KEYS[1], '*', ARGV[3], ARGV[4])
`);

interface Waiting {
  readonly text: string;
  readonly done: (kept: boolean) => void;
}

export interface OutboxAppenderOptions {
  readonly redis: RedisClient;
  readonly streamKey: string;
  readonly maxBacklog: number;
  readonly logger?: Logger;
  /** Told how many records one append lost (backlog full, Redis unreachable). */
  readonly onDropped: (records: number) => void;
}

/**
 * Group commit: the records given within one tick of the event loop — by the jobs running side by
 * side — go to Redis in one XADD, and each caller's promise resolves once that XADD answered
 * (true: the record is in Redis; false: dropped). A record is in the outbox before the job that
 * made it goes on, as with one XADD per record, at a fraction of the commands and socket writes.
 */
export function createOutboxAppender(
  options: OutboxAppenderOptions,
): (recordJson: string) => Promise<boolean> {
  const { redis, streamKey, maxBacklog, logger, onDropped } = options;
  const keys = [streamKey, outboxCountKey(streamKey)];
  let waiting: Waiting[] = [];
  let scheduled = false;

  const write = async (group: readonly Waiting[]): Promise<void> => {
    const [field, value] =
      group.length === 1
        ? [ONE_RECORD, group[0]?.text ?? '']
        : [RECORD_GROUP, `[${group.map((one) => one.text).join(',')}]`];
    let kept = false;
    try {
      kept = (await APPEND(redis, keys, [maxBacklog, group.length, field, value])) !== null;
      if (!kept) logger?.warn({ records: group.length }, 'history backlog full: records dropped');
    } catch (error) {
      logger?.warn({ records: group.length, err: errField(error) }, 'history records not kept');
    }
    if (!kept) onDropped(group.length);
    for (const one of group) one.done(kept);
  };

  const flush = (): void => {
    scheduled = false;
    const all = waiting;
    waiting = [];
    for (let start = 0; start < all.length; start += GROUP_MAX) {
      void write(all.slice(start, start + GROUP_MAX));
    }
  };

  return (recordJson) =>
    new Promise<boolean>((resolve) => {
      waiting.push({ text: recordJson, done: resolve });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
