import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

export { TEST_REDIS_URL } from './test-services';
import { TEST_REDIS_URL } from './test-services';

/** A queue name no other test (or test run) uses. */
export function uniqueQueueName(prefix: string): string {
  return `test-${prefix}-${randomUUID().slice(0, 8)}`;
}

/**
 * Removes every key of the queue, its rejected store, and what a worker keeps beside it (the
 * reconciliation's queue and marks, the job_end claims, the expected events); call in
 * afterEach/afterAll.
 */
export async function obliterateQueue(name: string): Promise<void> {
  for (const each of [name, `${name}-reconcile`]) {
    const queue = new Queue(each, { connection: { url: TEST_REDIS_URL } });
    try {
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
  }
  const redis = new Redis(TEST_REDIS_URL);
  try {
    // BullMQ's own keys start with `bull:`: these are the ones kept beside the queue (the
    // history's outbox, `<name>:history`, is its tests' to remove), and the route figures
    // (route-figures.ts), which obliterate does not know.
    const keys = [
      ...(await redis.keys(`${name}:*`)).filter((key) => !key.startsWith(`${name}:history`)),
      ...(await redis.keys(`bull:${name}:figures:*`)),
    ];
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
