import type { RedisClient } from '../../../src/redis/redis-client';
import { Registry } from 'prom-client';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startHttpReceiver } from './support/http-receiver';
import type { HttpReceiver } from './support/http-receiver';
import { eventually, routeEvent, silentLogger } from './support/route-events';

const ANSWER_AFTER_MS = 3000;

describe("inline attempts count against the route's concurrency", () => {
  let receiver: HttpReceiver;
  let connection: RedisClient;
  let routing: Routing;

  beforeEach(async () => {
    receiver = await startHttpReceiver();
    receiver.delay(ANSWER_AFTER_MS);
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    const yaml = `routes:
  - name: hook
    to: { http: { url: "${receiver.url}", timeoutMs: 10000 } }
    concurrency: 1
    circuit: off
`;
    routing = startRouting({
      connection,
      routes: parseRoutesFile(yaml, {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('inline-concurrency'),
      logger: silentLogger,
      registry: new Registry(),
      inline: { deadlineMs: 2 * ANSWER_AFTER_MS },
    });
    await routing.whenReady();
  });
  afterEach(async () => {
    await routing.close();
    for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
    await closeRedis(connection);
    await receiver.close();
  });

  it('makes one inline attempt at a time when events fan out at once', async () => {
    const events = Array.from({ length: 4 }, () => routeEvent());
    const fanOuts = Promise.all(
      events.map((event) => routing.fanOut(event, jobIdForEvent(event.id))),
    );
    await eventually(() => receiver.requests() >= 1, 'the first attempt', 20_000);
    const firstArrived = receiver.times[0] ?? 0;
    await fanOuts;
    await eventually(() => receiver.accepted.length === 4, 'every event delivered', 60_000);

    // What reached the destination before the first answer was in flight together: one inline
    // attempt, and at most one by the route worker (its own concurrency of 1).
    const together = receiver.times.filter((at) => at < firstArrived + ANSWER_AFTER_MS);
    expect(together.length).toBeLessThanOrEqual(2);
  });
});
