import { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { CliIo } from './cli-io';
import { openCliRedis } from './open-cli-redis';

export interface CliQueue {
  queue: Queue;
  /** The queue's own connection, for what lives beside it (the rejected store). */
  connection: RedisClient;
  /** `host:port` of the Redis (or its sentinels), for messages (no credentials). */
  target: string;
  close: () => Promise<void>;
}

/** The event queue for one CLI command, on its bounded connection (open-cli-redis.ts). */
export async function openCliQueue(env: CliIo['env']): Promise<CliQueue> {
  const redis = await openCliRedis(env);
  const queue = new Queue(redis.config.QUEUE_NAME, { connection: redis.connection });
  queue.on('error', () => undefined);
  return {
    queue,
    connection: redis.connection,
    target: redis.target,
    close: async () => {
      await queue.close();
      await redis.close();
    },
  };
}
