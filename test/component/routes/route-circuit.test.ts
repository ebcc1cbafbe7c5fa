import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import { runCli } from '../../../src/cli/run-cli';
import { Registry } from 'prom-client';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { isCircuitOpen } from '../../../src/routes/circuit-breaker';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { captureIo } from '../cli/cli-io-capture';
import { eventually, routeEvent } from './support/route-events';

describe('route circuit breaker', () => {
  let receiver: RecordingHttpReceiver;
  let routing: Routing;
  let connection: RedisClient;
  let log = captureLogger();
  let registry = new Registry();

  beforeEach(async () => {
    log = captureLogger();
    registry = new Registry();
    receiver = await startRecordingHttpReceiver(503);
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
  });
  afterEach(async () => {
    await routing.close();
    await closeRedis(connection);
    for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
    await receiver.close();
    rmSync(env.ROUTES_FILE ?? '', { force: true });
  });

  let env: Record<string, string> = {};

  async function listing(): Promise<string> {
    const io = captureIo(env);
    await runCli(['routes'], io);
    return io.stdout();
  }

  function start(circuit: string, backoffMs = 20): void {
    const file = `routes:
  - name: flaky
    to: { http: { url: "${receiver.origin}/in" } }
    retry: { attempts: 100, backoffMs: ${String(backoffMs)} }
    concurrency: 4
    circuit: ${circuit}
`;
    const queueName = uniqueQueueName('circuit');
    const routesFile = join(tmpdir(), `${queueName}.yaml`);
    writeFileSync(routesFile, file);
    env = { ROUTES_FILE: routesFile, REDIS_URL: TEST_REDIS_URL, QUEUE_NAME: queueName };
    routing = startRouting({
      connection,
      routes: parseRoutesFile(file, {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName,
      logger: log.logger,
      registry,
    });
  }

  async function gauge(): Promise<number | undefined> {
    const metric = await registry.getSingleMetric('svcws_route_circuit_open')?.get();
    return metric?.values.find((value) => value.labels.route === 'flaky')?.value;
  }

  it('opens after the threshold, holds deliveries without failing them, probes, closes and drains', async () => {
    start('{ failures: 3, probeSeconds: 0.4, maxProbeSeconds: 0.8 }');
    const queue = routing.queues.get('flaky');
    if (queue === undefined) throw new Error('no queue');
    const first = routeEvent();
    await routing.fanOut(first, jobIdForEvent(first.id));
    await eventually(() => isCircuitOpen(connection, queue), 'the circuit to open');
    expect(
      log.lines().filter((line) => line.msg === 'route circuit opened: deliveries wait'),
    ).toHaveLength(1);
    expect(await gauge()).toBe(1);
    expect(await listing()).toContain('CIRCUIT OPEN');

    const held = Array.from({ length: 5 }, () => routeEvent());
    for (const event of held) await routing.fanOut(event, jobIdForEvent(event.id));
    const seenAtOpen = receiver.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Open for 1.5 s with probes every 0.4 s, then 0.8 s: a few probes, no flood.
    const probes = receiver.requests.length - seenAtOpen;
    expect(probes).toBeGreaterThanOrEqual(1);
    expect(probes).toBeLessThanOrEqual(4);
    expect(log.lines().some((line) => line.msg === 'route circuit probe failed')).toBe(true);
    expect(await queue.getFailedCount()).toBe(0);
    const counts = await queue.getJobCounts('wait', 'delayed', 'active');
    expect((counts.wait ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0)).toBe(6);

    receiver.answer(200);
    await eventually(
      async () => !(await isCircuitOpen(connection, queue)),
      'the circuit to close',
      5000,
    );
    await eventually(
      async () => (await queue.getCompletedCount()) === 6,
      'every held delivery to drain',
      5000,
    );
    expect(await queue.getFailedCount()).toBe(0);
    expect(log.lines().some((line) => line.msg === 'route circuit closed')).toBe(true);
    expect(await gauge()).toBe(0);
    expect(await listing()).not.toContain('CIRCUIT OPEN');
  });

  it('circuit: off keeps attempting whatever fails', async () => {
    start('off', 1);
    const queue = routing.queues.get('flaky');
    if (queue === undefined) throw new Error('no queue');
    const event = routeEvent();
    await routing.fanOut(event, jobIdForEvent(event.id));
    // More failures in a row than the default threshold (10): a circuit would have opened.
    await eventually(() => receiver.requests.length >= 13, 'many attempts', 15_000);
    expect(await isCircuitOpen(connection, queue)).toBe(false);
  });
});
