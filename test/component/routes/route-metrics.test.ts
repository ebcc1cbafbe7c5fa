import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { createRouteMetrics } from '../../../src/routes/route-metrics';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

describe('route metrics read from the real route queue', () => {
  let queue: Queue;
  let registry: Registry;

  beforeEach(() => {
    queue = new Queue(uniqueQueueName('route-metrics'), { connection: { url: TEST_REDIS_URL } });
    registry = new Registry();
    createRouteMetrics(registry, new Map([['loans', queue]]));
  });
  afterEach(async () => {
    await queue.close();
    await obliterateQueue(queue.name);
  });

  async function gauge(name: string): Promise<number> {
    const metric = await registry.getSingleMetric(name)?.get();
    return metric?.values.find((value) => value.labels.route === 'loans')?.value ?? Number.NaN;
  }

  /** The gauge, and the bounds the age of a job added at `timestamp` may have while it was read. */
  async function oldestAge(
    timestamp: number,
  ): Promise<{ value: number; min: number; max: number }> {
    const before = Date.now();
    const value = await gauge('svcws_route_oldest_waiting_seconds');
    const after = Date.now();
    return { value, min: (before - timestamp) / 1000, max: (after - timestamp) / 1000 };
  }

  it('reports the age of the oldest waiting delivery, not the newest, paused or not', async () => {
    expect(await gauge('svcws_route_oldest_waiting_seconds')).toBe(0);
    const older = await queue.add('loan', { n: 1 });
    await new Promise((resolve) => setTimeout(resolve, 700));
    const newer = await queue.add('loan', { n: 2 });
    expect(newer.timestamp - older.timestamp).toBeGreaterThanOrEqual(700);

    let age = await oldestAge(older.timestamp);
    expect(age.value).toBeGreaterThanOrEqual(age.min);
    expect(age.value).toBeLessThanOrEqual(age.max);
    expect(await gauge('svcws_route_waiting')).toBe(2);

    // Paused: deliveries keep arriving and wait; the oldest is still the first one.
    await queue.pause();
    await queue.add('loan', { n: 3 });
    age = await oldestAge(older.timestamp);
    expect(age.value).toBeGreaterThanOrEqual(age.min);
    expect(age.value).toBeLessThanOrEqual(age.max);
    expect(await gauge('svcws_route_waiting')).toBe(3);

    await older.remove();
    age = await oldestAge(newer.timestamp);
    expect(age.value).toBeGreaterThanOrEqual(age.min);
    expect(age.value).toBeLessThanOrEqual(age.max);
  });
});
