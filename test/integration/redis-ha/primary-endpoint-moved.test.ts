import { once } from 'node:events';
import { Redis } from 'ioredis';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import type { RedisClient } from '../../../src/redis/redis-client';
import { captureLogger } from '../../helpers/capture-logger';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';
import { startStoppableProxy } from '../../helpers/stoppable-proxy';
import type { StoppableProxy } from '../../helpers/stoppable-proxy';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The write's outcome: `OK`, or the first word of Redis's refusal. */
async function write(connection: RedisClient, value: string): Promise<string> {
  try {
    return await connection.set('endpoint-moved', value);
  } catch (error) {
    return (error as Error).message.split(' ')[0] ?? '';
  }
}

/**
 * A managed Redis's primary endpoint is a DNS name that moves to the promoted node on a failover;
 * a connection made before stays on the old primary, now a replica, whose writes fail READONLY.
 * Here a proxy stands for the name (its target moves), two private servers for the nodes.
 */
describe.each([
  ['the listener', (url: string) => openProducerConnection(url)],
  ['the worker', (url: string) => openWorkerConnection(url, captureLogger().logger)],
])("%s's connection when the primary endpoint moves to the promoted node", (_who, open) => {
  let oldPrimary: PrivateRedis;
  let promoted: PrivateRedis;
  let endpoint: StoppableProxy;
  const target = { host: '127.0.0.1', port: 0 };

  beforeAll(async () => {
    [oldPrimary, promoted] = await Promise.all([startPrivateRedis(), startPrivateRedis()]);
    target.port = oldPrimary.port;
    endpoint = await startStoppableProxy(target);
  });
  afterAll(async () => {
    await endpoint.close();
    await Promise.all([oldPrimary.close(), promoted.close()]);
  });

  it('reconnects on the first READONLY, so the next write reaches the new primary without a restart', async () => {
    const connection = open(`redis://127.0.0.1:${String(endpoint.port)}`);
    const admin = new Redis(oldPrimary.url);
    try {
      // The listener's connection keeps no offline queue: it writes once it is connected.
      if (connection.status !== 'ready') await once(connection, 'ready');
      expect(await write(connection, 'before')).toBe('OK');
      // The failover: the old primary follows the promoted one, and the name moves.
      await admin.replicaof('127.0.0.1', String(promoted.port));
      target.port = promoted.port;

      const refused = await write(connection, 'during');
      let after = refused;
      const deadline = Date.now() + 10_000;
      while (after !== 'OK' && Date.now() < deadline) {
        await sleep(100);
        after = await write(connection, 'after');
      }

      expect(refused).toBe('READONLY');
      expect(after).toBe('OK');
      const check = new Redis(promoted.url);
      try {
        expect(await check.get('endpoint-moved')).toBe('after');
      } finally {
        check.disconnect();
      }
    } finally {
      admin.disconnect();
      await closeRedis(connection);
    }
  });
});
