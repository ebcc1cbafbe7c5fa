import type { RedisClient } from '../../../src/redis/redis-client';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { readRouteReport } from '../../../src/routes/read-route-report';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { silentLogger } from './support/route-events';

describe('a route state read from Redis, as every process sees it', () => {
  let connection: RedisClient;
  let routing: Routing;
  const yaml = `routes:
  - { name: paced, to: { http: { url: "http://127.0.0.1:9/in" } }, ratePerSecond: 1 }
  - { name: guarded, to: { http: { url: "http://127.0.0.1:9/in" } } }
`;
  const { routes } = parseRoutesFile(yaml, {});

  beforeEach(() => {
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    // Queues only: nothing is delivered, the state is set by hand as the processes would.
    routing = startRouting({
      connection,
      routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('route-state'),
      logger: silentLogger,
      runWorkers: false,
    });
  });
  afterEach(async () => {
    await routing.close();
    for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
    await closeRedis(connection);
  });

  async function stateOf(name: string) {
    const queue = routing.queues.get(name);
    const route = routes.find((one) => one.name === name);
    if (queue === undefined || route === undefined) throw new Error(`no route ${name}`);
    return (await readRouteReport(connection, queue, route)).state;
  }

  it('reads running, then paused after a pause from any process', async () => {
    expect((await stateOf('guarded')).state).toBe('running');
    await routing.queues.get('guarded')?.pause();
    expect((await stateOf('guarded')).state).toBe('paused');
  });

  it('reads circuit open, and until when, from the circuit every process shares', async () => {
    const queue = routing.queues.get('guarded');
    const probeAt = Date.now() + 30_000;
    await connection.hset(queue?.toKey('circuit') ?? '', 'state', 'open', 'probeAt', probeAt);
    expect(await stateOf('guarded')).toMatchObject({
      state: 'circuit open',
      circuitOpenUntil: new Date(probeAt).toISOString(),
    });
  });

  it('reads rate-limited while deliveries wait and the rate window runs', async () => {
    const queue = routing.queues.get('paced');
    await queue?.add('loan', { id: '1' });
    expect((await stateOf('paced')).state).toBe('running');
    await queue?.rateLimit(5000);
    expect((await stateOf('paced')).state).toBe('rate-limited');
  });
});
