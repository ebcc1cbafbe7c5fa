import type { RedisClient } from './redis-client';
import type { Logger } from '../logger';
import { openRedis } from './open-redis';
import type { RedisConnectionConfig } from './open-redis';
import { watchRedis } from './watch-redis';

/**
 * The worker's Redis connection, as BullMQ's production guide asks of workers:
 * `maxRetriesPerRequest: null`, so a Redis that goes away is waited for instead of failing the
 * blocking commands. ioredis reconnects by itself (through Sentinel when configured: a failover
 * needs no restart); Redis away is said once (watch-redis.ts) instead of an unhandled 'error' event.
 * Opened by the composition root (bin/worker.ts), closed there.
 */
export function openWorkerConnection(
  redis: string | RedisConnectionConfig,
  logger: Logger,
): RedisClient {
  const connection = openRedis(redis, { maxRetriesPerRequest: null });
  watchRedis(connection, redis, logger);
  return connection;
}
