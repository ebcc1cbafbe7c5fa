import { Queue } from 'bullmq';
import type { Worker } from 'bullmq';
import type { RedisClient } from '../../../src/redis/redis-client';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { createDestination } from '../../../src/routes/create-destination';
import { createRouteWorker } from '../../../src/routes/create-route-worker';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import type { PausedState } from '../../../src/routes/paused-state';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startHttpReceiver } from './support/http-receiver';
import type { HttpReceiver } from './support/http-receiver';
import { eventually, routeEvent, silentLogger } from './support/route-events';

describe('route worker: a job taken while the pause is not confirmed', () => {
  let receiver: HttpReceiver;
  let connection: RedisClient;
  let queue: Queue;
  let worker: Worker | undefined;

  beforeEach(async () => {
    receiver = await startHttpReceiver();
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    queue = new Queue(uniqueQueueName('worker-pause'), { connection });
  });
  afterEach(async () => {
    await worker?.close();
    await obliterateQueue(queue.name);
    await queue.close();
    await closeRedis(connection);
    await receiver.close();
  });

  it('goes back to wait with no attempt spent, and is delivered once the route runs', async () => {
    const [route] = parseRoutesFile(
      `routes: [{ name: hook, to: { http: { url: "${receiver.url}" } }, retry: { attempts: 3, backoffMs: 50 } }]`,
      {},
    ).routes;
    if (route === undefined) throw new Error('no route');
    // What the paused-state read would say in a process whose last read said "paused".
    let running = false;
    let asked = 0;
    const paused: PausedState = {
      runningConfirmed: () => running,
      confirm: () => {
        asked += 1;
        return Promise.resolve(running);
      },
      runningNow: () => Promise.resolve(running),
      stop: () => undefined,
    };
    const destination = createDestination(route.to, {
      route: route.name,
      logger: silentLogger,
      redisUrl: TEST_REDIS_URL,
    });
    const log = captureLogger();
    worker = createRouteWorker({
      route,
      queueName: queue.name,
      connection,
      delivery: { route, destination, logger: log.logger },
      paused,
    });
    const event = routeEvent();
    await queue.add('loan', event, { jobId: 'evt-1', attempts: 3 });

    await eventually(() => asked >= 2, 'the worker to take the job and put it back');
    expect(receiver.requests()).toBe(0);
    const job = await queue.getJob('evt-1');
    expect(job?.attemptsMade).toBe(0);
    // Said at info, as an attempt's stage (docs/logs.md): the event, the route, `paused`.
    expect(log.lines().find((line) => line.msg === 'delivery held: the route is paused')).toEqual(
      expect.objectContaining({
        level: 30,
        institution: '01ABC_INST',
        action: event.action,
        eventId: event.id,
        route: 'hook',
        outcome: 'paused',
        queueJobId: 'evt-1',
      }),
    );

    running = true;
    await eventually(() => receiver.accepted.length === 1, 'the delivery once the route runs');
    expect(receiver.accepted).toEqual([event.id]);
  });
});
