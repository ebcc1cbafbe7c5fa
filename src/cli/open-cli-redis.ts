import type { RedisClient } from '../redis/redis-client';
import { loadConfig } from '../config';
import { openRedis } from '../redis/open-redis';
import type { CliIo } from './cli-io';
import { CliQueueConfig } from './cli-config';
import { messageOf } from '../message-of';
import { redisWhere } from '../redis/redis-target';

export interface CliRedis {
  readonly connection: RedisClient;
  readonly config: CliQueueConfig;
  /** `host:port` of the Redis (or its sentinels), for messages (no credentials). */
  readonly target: string;
  close(): Promise<void>;
}

/**
 * The Redis of one CLI command (REDIS_URL, or through Sentinel). Unlike the listener and the
 * worker, a command must not wait for a Redis that is away: one connection attempt, bounded, and
 * a message naming where.
 */
export async function openCliRedis(env: CliIo['env']): Promise<CliRedis> {
  const config = loadConfig(CliQueueConfig, env);
  const { target, key } = redisWhere(config);
  const connection = openRedis(config, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    // Through Sentinel: every sentinel asked once, then the message below.
    sentinelRetryStrategy: () => null,
  });
  // ioredis rejects connect() with "Connection is closed"; the 'error' event says why.
  let lastError: Error | undefined;
  connection.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await connection.connect();
  } catch (error) {
    // Already ended after a refused connect; disconnect() then would arm a 2 s timer for nothing.
    if (connection.status !== 'end') connection.disconnect();
    const reason = messageOf(lastError ?? error);
    throw new Error(`cannot reach Redis at ${target} (${key}): ${reason}`);
  }
  return {
    connection,
    config,
    target,
    close: async () => {
      if (connection.status === 'ready') await connection.quit();
      else connection.disconnect();
    },
  };
}
