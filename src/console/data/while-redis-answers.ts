import type { Redis } from 'ioredis';
import { consoleError } from './console-error';

/**
 * A read of the console's Redis, refused at once as `redis_down` (503) while the connection is
 * not ready: the console's connection has no offline queue, and BullMQ's calls would otherwise
 * wait for a connection that never came up. A read that fails because the connection went away
 * or stopped answering (its command timeout) is `redis_down` too; any other failure stays itself.
 */
export async function whileRedisAnswers<T>(
  connection: Redis,
  what: string,
  read: () => Promise<T>,
): Promise<T> {
  if (connection.status !== 'ready') throw consoleError.redisDown(what);
  try {
    return await read();
  } catch (error) {
    if (connection.status !== 'ready' || isTimeout(error)) throw consoleError.redisDown(what);
    throw error;
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Command timed out';
}
