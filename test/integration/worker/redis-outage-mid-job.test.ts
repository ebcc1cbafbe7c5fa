import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { startHttpReceiver } from '../../component/routes/support/http-receiver';
import type { HttpReceiver } from '../../component/routes/support/http-receiver';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';
import { enqueueRouteEvents } from './support/route-burst';
import { spawnWorker } from './support/child-process';
import type { ChildWorker } from './support/child-process';

const QUEUE = 'mid-job';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Scene {
  redis: PrivateRedis;
  receiver: HttpReceiver;
  worker: ChildWorker;
  queue: Queue;
  routeQueue: Queue;
  close: () => Promise<void>;
}

/**
 * A worker process (locks of 3 s, stalled checks every 1.5 s) on a private Redis, with one HTTP
 * route to a receiver; ROUTE_INLINE as given.
 */
async function startScene(inline: string): Promise<Scene> {
  const redis = await startPrivateRedis();
  const dir = await mkdtemp(join(tmpdir(), 'outage-mid-job-'));
  const receiver = await startHttpReceiver();
  const routesFile = join(dir, 'routes.yaml');
  await writeFile(
    routesFile,
    `routes:\n  - name: hook\n    to: { http: { url: "${receiver.url}" } }\n`,
  );
  const worker = spawnWorker('test/integration/worker/support/worker-child.ts', {
    REDIS_URL: redis.url,
    QUEUE_NAME: QUEUE,
    ROUTE_INLINE: inline,
    ROUTES_FILE: routesFile,
    RECORDS_DIR: join(dir, 'records'),
    WORKER_METRICS_PORT: '0',
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_API_KEY: 'unused',
    RECONCILE_INTERVAL_SECONDS: '0',
    TEST_LOCK_MS: '3000',
    TEST_STALLED_MS: '1500',
  });
  await worker.waitForLine((line) => line.msg === 'worker ready');
  const connection = { connection: { url: redis.url } };
  const queue = new Queue(QUEUE, connection);
  const routeQueue = new Queue(routeQueueName(QUEUE, 'hook'), connection);
  for (const each of [queue, routeQueue]) each.on('error', () => undefined);
  const close = async (): Promise<void> => {
    worker.child.kill('SIGKILL');
    await worker.exited();
    await Promise.all([queue.close(), routeQueue.close(), receiver.close()]);
    await redis.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { redis, receiver, worker, queue, routeQueue, close };
}

describe.each([
  ['inline', 'on'],
  ['by its route job', 'off'],
])('a worker whose Redis stops while it delivers an event %s', (_how, inline) => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await startScene(inline);
  });
  afterAll(async () => {
    await scene.close();
  });

  it('delivers the event once, and completes its job, when Redis stays away longer than the job lock', async () => {
    const { redis, receiver, worker, queue, routeQueue } = scene;
    // Held past half the lock, when BullMQ renews it: the renewal is sent while Redis is away and
    // refused when it is back, every run (not only when the machine is slow).
    receiver.delay(2500);
    const [event] = await enqueueRouteEvents(queue, 1);
    // The delivery is under way (its answer held 2.5 s) when Redis goes.
    while (receiver.requests() === 0) await sleep(20);
    await redis.stop();
    // Away for twice the lock (TEST_LOCK_MS): Redis comes back without it.
    await sleep(6000);
    await redis.start();
    // The job that made the delivery: the event job inline, else the route job (same id).
    const delivering = inline === 'on' ? queue : routeQueue;
    const jobId = `evt-${event?.id ?? ''}`;
    const deadline = Date.now() + 20_000;
    while ((await delivering.getJobState(jobId)) !== 'completed' && Date.now() < deadline)
      await sleep(100);
    // Several stalled checks (TEST_STALLED_MS) later: none ran the job again.
    await sleep(5000);

    expect(await queue.getJobState(jobId)).toBe('completed');
    expect(await delivering.getJobState(jobId)).toBe('completed');
    expect(receiver.accepted).toEqual([event?.id]);
    // The lost lock was said once, as what it is, not as a worker error.
    const lockLost = worker.lines().filter((line) => /lock lost/.test(String(line.msg)));
    expect(lockLost.map((line) => line.queueJobId)).toEqual([jobId]);
    expect(worker.lines().filter((line) => /worker error$/.test(String(line.msg)))).toEqual([]);
  });
});
