import type { RedisClient } from '../../redis/redis-client';
import { consoleError } from './console-error';
import { isQueueUnavailable } from '../../events/queue-unavailable-error';

/** Statuses of a connection on its way up: a read waits for it this long, no more. */
const COMING_UP = new Set(['wait', 'connecting', 'connect']);
const READY_WAIT_MS = 1000;

/**
 * A read of the console's Redis, refused as `redis_down` (503) while the connection is not ready:
 * the console's connection has no offline queue, and BullMQ's calls would otherwise wait for a
 * connection that never came up. A connection still on its way up (the console's first requests
 * right after its start) is given a second. A read that fails because the connection went away
 * or stopped answering (its command timeout) is `redis_down` too, as is a Redis Cluster's node
 * away or being replaced (isQueueUnavailable); any other failure stays itself.
 */
export async function whileRedisAnswers<T>(
  connection: RedisClient,
  what: string,
  read: () => Promise<T>,
): Promise<T> {
  if (!(await readyWithin(connection, READY_WAIT_MS))) throw consoleError.redisDown(what);
  try {
    return await read();
  } catch (error) {
    // On a cluster the connection stays ready while one node is away: its errors say so.
    // A command timeout is one of those (isQueueUnavailable).
    if (connection.status !== 'ready' || isQueueUnavailable(error)) {
      throw consoleError.redisDown(what);
    }
    throw error;
  }
}

/** Whether the connection is ready, or becomes ready within `ms` while it is coming up. */
async function readyWithin(connection: RedisClient, ms: number): Promise<boolean> {
  if (connection.status === 'ready') return true;
  if (!COMING_UP.has(connection.status)) return false;
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      connection.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(connection.status === 'ready'), ms);
    connection.once('ready', onReady);
  });
}
