import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

/** The Redis the tests use: REDIS_URL, or the machine's local one. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A queue name no other test (or test run) uses. */
export function uniqueQueueName(prefix: string): string {
  return `test-${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Removes every key of the queue, and its rejected store; call in afterEach/afterAll. */
export async function obliterateQueue(name: string): Promise<void> {
  const queue = new Queue(name, { connection: { url: TEST_REDIS_URL } });
  try {
    await queue.obliterate({ force: true });
  } finally {
    await queue.close();
  }
  const redis = new Redis(TEST_REDIS_URL);
  try {
    // BullMQ's obliterate leaves keys it does not know: the route figures (route-figures.ts).
    const keys = [
      ...(await redis.keys(`${name}:rejected:*`)),
      ...(await redis.keys(`bull:${name}:figures:*`)),
    ];
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
