import { createHash } from 'node:crypto';
import { PRIORITY_LIMIT } from 'bullmq';
import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';

/**
 * The BullMQ priority of one institution's next delivery on each of `queues`, in their order.
 * Lower numbers are taken first, equal numbers in the order they were added (BullMQ's
 * prioritized set, scored `priority × 2³² + a counter`).
 */
export type FairPriorities = (institution: string, queues: readonly Queue[]) => Promise<number[]>;

/**
 * Round-robin across institutions on a shared route queue, as start-time fair queuing: each
 * delivery is numbered `max(its institution's last number + 1, the number served now)`, where the
 * number served now is the lowest priority waiting in the queue — so an institution's k-th waiting
 * delivery gets the same number as every other institution's k-th, and the queue takes A1, B1,
 * A2, B2… Within one institution the numbers only grow, so its own deliveries keep their order;
 * an institution joining a backlog starts at the round being served, neither behind the whole
 * backlog nor ahead of it with credit for the time it was idle. An empty queue serves the highest
 * number given so far (`:top`): deliveries whose numbers were given but whose add has not landed
 * yet (another fan-out's, a moment ago) keep their place. The numbers start again from 1 when the
 * queue is empty and nothing was numbered for IDLE_MS, or when they passed half of BullMQ's
 * PRIORITY_LIMIT; a backlog that never empties for that many rounds ends with every delivery at
 * the limit, and the queue is plain first-in first-out until it empties.
 * KEYS: per queue its hash (`bull:<queue>:fair`: institution → its last number, `:at`, `:top`),
 * then its prioritized set. ARGV: institution, PRIORITY_LIMIT, IDLE_MS.
 */
const NEXT_PLACES = `
local out = {}
local limit = tonumber(ARGV[2])
local time = redis.call('TIME')
local ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 1, #KEYS, 2 do
  local first = redis.call('ZRANGE', KEYS[i + 1], 0, 0, 'WITHSCORES')
  local state = redis.call('HMGET', KEYS[i], ':at', ':top')
  local top = tonumber(state[2] or '0')
  local now = top
  if #first > 0 then
    now = math.floor(tonumber(first[2]) / 4294967296)
  elseif ms - tonumber(state[1] or '0') > tonumber(ARGV[3]) or top > limit / 2 then
    redis.call('DEL', KEYS[i])
    top = 0
    now = 1
  end
  local last = tonumber(redis.call('HGET', KEYS[i], ARGV[1]) or '0')
  local place = math.min(math.max(last + 1, now), limit)
  redis.call('HSET', KEYS[i], ARGV[1], place, ':at', ms, ':top', math.max(top, place))
  out[#out + 1] = place
end
return out
`;
/** No delivery numbered for this long and none waiting: no add can still be on its way. */
const IDLE_MS = 1000;
const NEXT_PLACES_SHA = createHash('sha1').update(NEXT_PLACES).digest('hex');

/**
 * The priorities of a process that serves several institutions: one script call per event for
 * all its route jobs, made before they are added (the add needs the number).
 */
export function createFairPriorities(connection: RedisClient): FairPriorities {
  return async (institution, queues) => {
    if (queues.length === 0) return [];
    const args = [institution, String(PRIORITY_LIMIT), String(IDLE_MS)];
    const run = async (some: readonly Queue[]): Promise<number[]> => {
      const keys = some.flatMap((queue) => [queue.toKey('fair'), queue.toKey('prioritized')]);
      try {
        return (await connection.evalsha(
          NEXT_PLACES_SHA,
          keys.length,
          ...keys,
          ...args,
        )) as number[];
      } catch (error) {
        // The script cache is empty after a Redis restart or failover: send the script itself.
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return (await connection.eval(NEXT_PLACES, keys.length, ...keys, ...args)) as number[];
      }
    };
    // On a cluster each route queue is a slot of its own: one call per queue, side by side.
    const places = connection.isCluster
      ? (await Promise.all(queues.map((queue) => run([queue])))).flat()
      : await run(queues);
    return places.map(Number);
  };
}
