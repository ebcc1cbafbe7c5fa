import type { Queue } from 'bullmq';
import type { RedisClient } from '../../../src/redis/redis-client';
import { Registry } from 'prom-client';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { replayFailedJob } from '../../../src/operations/replay-failed-job';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { routeWaitingCount } from '../../../src/routes/route-waiting-count';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { eventually, routeEvent, silentLogger } from './support/route-events';

const A = '01AAA_INST';
const B = '01BBB_INST';

function memberEvent(institution: string, seq: number): CanonicalEvent {
  return routeEvent({ institution: { value: institution }, item_loan: { loan_id: String(seq) } });
}

/** How the worker names a member's jobs (`<code>-evt-<id>`, worker-process.ts). */
function memberJobId(event: CanonicalEvent): string {
  return `${event.institution?.value ?? ''}-${jobIdForEvent(event.id)}`;
}

describe('routing: fair across institutions on a shared route', () => {
  let receiver: RecordingHttpReceiver;
  let connection: RedisClient;
  let routing: Routing | undefined;
  let registry = new Registry();

  beforeEach(async () => {
    receiver = await startRecordingHttpReceiver(200);
    registry = new Registry();
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
  });
  afterEach(async () => {
    await routing?.close();
    for (const queue of routing?.queues.values() ?? []) {
      await connection.del(queue.toKey('fair'), queue.toKey('circuit'));
      await obliterateQueue(queue.name);
    }
    routing = undefined;
    await closeRedis(connection);
    await receiver.close();
  });

  function start(options: {
    fair: boolean;
    runWorkers: boolean;
    ratePerSecond?: number;
    attempts?: number;
  }): Queue {
    const rate =
      (options.ratePerSecond === undefined
        ? ''
        : `    ratePerSecond: ${String(options.ratePerSecond)}\n`) +
      (options.attempts === undefined
        ? ''
        : `    retry: { attempts: ${String(options.attempts)} }\n`);
    const { routes } = parseRoutesFile(
      `routes:
  - name: shared
    to: { http: { url: "${receiver.origin}/in" } }
${rate}`,
      {},
    );
    routing = startRouting({
      connection,
      routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('fair'),
      logger: silentLogger,
      registry,
      runWorkers: options.runWorkers,
      fairAcrossInstitutions: options.fair,
    });
    const queue = routing.queues.get('shared');
    if (queue === undefined) throw new Error('no queue');
    return queue;
  }

  async function fanOutAll(events: readonly CanonicalEvent[]): Promise<void> {
    const fanOut = routing?.fanOut;
    if (fanOut === undefined) throw new Error('not started');
    // Side by side in slices, as several event workers would add them.
    for (let at = 0; at < events.length; at += 500) {
      await Promise.all(
        events.slice(at, at + 500).map((event) => fanOut(event, memberJobId(event))),
      );
    }
  }

  async function gauge(name: string): Promise<number | undefined> {
    const metric = await registry.getSingleMetric(name)?.get();
    return metric?.values.find((value) => value.labels.route === 'shared')?.value;
  }

  /** The waiting deliveries in the order the route's worker will take them. */
  async function takingOrder(queue: Queue): Promise<string[]> {
    const jobs = await queue.getJobs(['wait', 'prioritized'], 0, -1, true);
    return jobs.map((job) => {
      const event = job.data as CanonicalEvent & { item_loan?: { loan_id?: string } };
      return `${event.institution?.value === A ? 'A' : 'B'}${event.item_loan?.loan_id ?? '?'}`;
    });
  }

  it('takes a backlog round-robin across members, each member in its own order', async () => {
    const queue = start({ fair: true, runWorkers: false });
    await fanOutAll([1, 2, 3, 4].map((seq) => memberEvent(A, seq)));
    await fanOutAll([1, 2].map((seq) => memberEvent(B, seq)));
    expect(await takingOrder(queue)).toEqual(['A1', 'B1', 'A2', 'B2', 'A3', 'A4']);
    // Prioritized jobs are counted as waiting, and their age is seen.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await gauge('svcws_route_waiting')).toBe(6);
    expect(await gauge('svcws_route_oldest_waiting_seconds')).toBeGreaterThan(0);
  });

  it('queues one institution first-in first-out, with no priority, as before', async () => {
    const queue = start({ fair: false, runWorkers: false });
    await fanOutAll([1, 2, 3, 4].map((seq) => memberEvent(A, seq)));
    await fanOutAll([1, 2].map((seq) => memberEvent(B, seq)));
    expect(await takingOrder(queue)).toEqual(['A1', 'A2', 'A3', 'A4', 'B1', 'B2']);
    expect(await queue.getPrioritizedCount()).toBe(0);
  });

  it('replays a failed prioritized delivery, which keeps its priority', async () => {
    const queue = start({ fair: true, runWorkers: true, attempts: 1 });
    receiver.answer(500);
    const event = memberEvent(B, 1);
    await fanOutAll([event]);
    await eventually(async () => (await queue.getFailedCount()) === 1, 'the delivery to fail');
    receiver.answer(200);
    const [failed] = await queue.getFailed();
    if (failed === undefined) throw new Error('no failed job');
    expect(failed.priority).toBeGreaterThan(0);
    await replayFailedJob(failed);
    await eventually(async () => (await queue.getCompletedCount()) === 1, 'the replay delivered');
    expect((await queue.getJob(memberJobId(event)))?.priority).toBe(failed.priority);
  });

  it("delivers a member's 20 events within 5 s behind another's 20,000 while that backlog drains", async () => {
    // A limited rate makes A's backlog last (20,000 at 400/s: about 50 s) while B's arrive.
    const queue = start({ fair: true, runWorkers: true, ratePerSecond: 400 });
    const countOf = (code: string): number =>
      receiver.requests.filter((request) => request.body.includes(`"value":"${code}"`)).length;
    await fanOutAll(Array.from({ length: 20_000 }, (_, seq) => memberEvent(A, seq)));
    expect(await routeWaitingCount(queue)).toBeGreaterThan(10_000);

    const started = Date.now();
    await fanOutAll(Array.from({ length: 20 }, (_, seq) => memberEvent(B, seq)));
    await eventually(() => countOf(B) === 20, "all of B's deliveries", 30_000);
    const tookMs = Date.now() - started;
    const aAtB = countOf(A);

    expect(tookMs).toBeLessThan(5000);
    // A's backlog is still there, and keeps draining after B's are through.
    expect(aAtB).toBeLessThan(20_000);
    expect(await routeWaitingCount(queue)).toBeGreaterThan(0);
    await eventually(() => countOf(A) >= aAtB + 200, "A's backlog to keep draining", 30_000);
  });
});
