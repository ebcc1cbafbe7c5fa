import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { loadConfig } from '../config';
import { openRedis } from '../redis/open-redis';
import type { CliIo } from './cli-io';
import { CliQueueConfig } from './cli-config';
import { messageOf } from './message-of';
import { redisTarget } from './redis-target';

export interface CliQueue {
  queue: Queue;
  /** The queue's own connection, for what lives beside it (the rejected store). */
  connection: Redis;
  /** `host:port` of the Redis (or its sentinels), for messages (no credentials). */
  target: string;
  close: () => Promise<void>;
}

/**
 * The event queue for one CLI command. Unlike the listener and the worker, a command must not
 * wait for a Redis that is away: one connection attempt, bounded, and a message naming where.
 */
export async function openCliQueue(env: CliIo['env']): Promise<CliQueue> {
  const config = loadConfig(CliQueueConfig, env);
  const sentinels = config.REDIS_SENTINELS;
  const target =
    sentinels === undefined
      ? redisTarget(config.REDIS_URL)
      : `sentinels ${sentinels.map(({ host, port }) => `${host}:${port}`).join(',')}`;
  const key = sentinels === undefined ? 'REDIS_URL' : 'REDIS_SENTINELS';
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
  const queue = new Queue(config.QUEUE_NAME, { connection });
  queue.on('error', () => undefined);
  return {
    queue,
    connection,
    target,
    close: async () => {
      await queue.close();
      if (connection.status === 'ready') await connection.quit();
      else connection.disconnect();
    },
  };
}
