import type { RedisClient } from './redis-client';

/**
 * Closes a connection for good: QUIT when it is up (Redis answers what is in flight first), else a
 * plain disconnect, which also stops ioredis from reconnecting. A connection that already ended is
 * left alone: telling it again would make ioredis arm a new timer.
 */
export async function closeRedis(connection: RedisClient): Promise<void> {
  if (connection.status === 'ready') await connection.quit();
  else if (connection.status !== 'end') connection.disconnect();
}
