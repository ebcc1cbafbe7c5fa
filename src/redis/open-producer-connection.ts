import type { RedisClient } from './redis-client';
import type { Logger } from '../logger';
import { openRedis } from './open-redis';
import type { RedisConnectionConfig } from './open-redis';
import { watchRedis } from './watch-redis';

export interface ProducerConnectionOptions {
  /** A command that gets no answer this long fails (→ 503 to the sender); 1 s unless given. */
  readonly commandTimeoutMs?: number;
  /** Told once when Redis is away and once when it is back (watch-redis.ts); silent without. */
  readonly logger?: Logger;
}

/**
 * The listener's Redis connection, as BullMQ's production guide asks of a producer: no offline
 * queue, so a command fails at once while Redis is away (→ 503 to the sender) instead of waiting
 * for it; and a command timeout, so a Redis that stops answering mid-connection fails fast too.
 *
 * No auto-pipelining: it batches the writes of deliveries that arrive together, which spares Redis
 * CPU, but costs the listener more than it saves (a Pipeline per flush that copies BullMQ's 64
 * scripts onto itself, a promise and a nextTick per command): 15–35 µs more per delivery measured
 * in-process (docs/benchmarks.md, the enqueue-cost bench). Through Sentinel (REDIS_SENTINELS)
 * each reconnect asks the sentinels which server is primary: a failover costs 503s while it lasts,
 * no restart. Opened by the composition root (bin/web.ts), closed there with closeRedis.
 */
export function openProducerConnection(
  redis: string | RedisConnectionConfig,
  { commandTimeoutMs = 1000, logger }: ProducerConnectionOptions = {},
): RedisClient {
  const connection = openRedis(redis, {
    enableOfflineQueue: false,
    enableAutoPipelining: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
  });
  // Connection errors surface as 503s and in /readyz; ioredis would otherwise print them unhandled.
  if (logger === undefined) connection.on('error', () => undefined);
  else watchRedis(connection, redis, logger);
  return connection;
}
