import { Cluster } from 'ioredis';
import type { Redis } from 'ioredis';
import { closeRedis } from '../../src/redis/close-redis';
import { openRedis } from '../../src/redis/open-redis';
import type { RedisConnectionConfig } from '../../src/redis/open-redis';

/**
 * Removes every key of one demo run: its queues' (`bull:<queue>…`, the route queue's too) and the
 * history outbox beside them (`<queue>:history…`). The queue name holds a random part of its own,
 * so the pattern matches this run's keys only, also on a Redis that others use; on a cluster,
 * where the names are tagged (`{demo-…}`), every primary is searched.
 */
export async function removeDemoKeys(
  redis: RedisConnectionConfig,
  queueName: string,
): Promise<void> {
  const connection = openRedis(redis, { maxRetriesPerRequest: 1 });
  connection.on('error', () => undefined);
  try {
    // Ready once it answers: a cluster knows its primaries by then.
    await connection.ping();
    const servers = connection instanceof Cluster ? connection.nodes('master') : [connection];
    for (const server of servers) await removeMatching(server, `*${queueName}*`);
  } finally {
    await closeRedis(connection);
  }
}

/** One server's keys that match, unlinked one by one: a cluster's may lie on different slots. */
async function removeMatching(server: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await server.pipeline(keys.map((key) => ['unlink', key])).exec();
    cursor = next;
  } while (cursor !== '0');
}
