import { Redis } from 'ioredis';

/**
 * Removes every key of one demo run: its queues' (`bull:<queue>…`, the route queue's too) and the
 * history outbox beside them (`<queue>:history…`). The queue name holds a random part of its own,
 * so the pattern matches this run's keys only, also on a Redis that others use.
 */
export async function removeDemoKeys(redisUrl: string, queueName: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${queueName}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
