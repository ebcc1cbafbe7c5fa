import type { RedisClient } from '../../../src/redis/redis-client';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { runCli } from '../../../src/cli/run-cli';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { readRouteFigures } from '../../../src/routes/read-route-figures';
import type { RouteFigures } from '../../../src/routes/read-route-figures';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { captureIo } from '../cli/cli-io-capture';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startHttpReceiver } from './support/http-receiver';
import type { HttpReceiver } from './support/http-receiver';
import { eventually, routeEvent, silentLogger } from './support/route-events';

interface ListedRoute {
  route: string;
  state: string;
  failing: RouteFigures['failing'];
  lastHour: RouteFigures['lastHour'];
  p95DeliveryMs: number | null;
  last: RouteFigures['last'];
}

describe('route figures: every attempt counted, inline and queued, from one source', () => {
  let receiver: HttpReceiver;
  let connection: RedisClient;
  let routing: Routing;
  let registry: Registry;
  let env: Record<string, string>;

  beforeEach(async () => {
    receiver = await startHttpReceiver();
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    registry = new Registry();
    const queueName = uniqueQueueName('figures');
    const yaml = `routes:
  - name: hook
    to: { http: { url: "${receiver.url}" } }
    retry: { attempts: 20, backoffMs: 100 }
    circuit: off
`;
    env = {
      ROUTES_FILE: join(tmpdir(), `${queueName}.yaml`),
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
    };
    writeFileSync(env.ROUTES_FILE ?? '', yaml);
    routing = startRouting({
      connection,
      routes: parseRoutesFile(yaml, {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName,
      logger: silentLogger,
      registry,
      // ROUTE_INLINE on, as by default: the first attempt leaves no route job.
      inline: { deadlineMs: 2000 },
    });
    // Until the route workers run and the inline path has read the queue's pause (paused-state.ts).
    await routing.whenReady();
  });
  afterEach(async () => {
    await routing.close();
    for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
    await closeRedis(connection);
    await receiver.close();
    rmSync(env.ROUTES_FILE ?? '', { force: true });
  });

  async function listed(): Promise<ListedRoute> {
    const io = captureIo(env);
    expect(await runCli(['routes', '--json'], io)).toBe(0);
    const [row] = JSON.parse(io.stdout()) as ListedRoute[];
    if (row === undefined) throw new Error('no route listed');
    return row;
  }

  async function stateGauge(): Promise<Record<string, number>> {
    const metric = await registry.getSingleMetric('svcws_route_state')?.get();
    return Object.fromEntries(
      (metric?.values ?? []).map((one) => [String(one.labels.state), one.value]),
    );
  }

  const send = async (institution = '01ABC_INST'): Promise<string> => {
    const event = routeEvent({ institution: { value: institution } });
    await routing.fanOut(event, jobIdForEvent(event.id));
    return event.id;
  };

  it('counts deliveries made inline, which leave no route job', async () => {
    for (let index = 0; index < 3; index += 1) await send();
    const queue = routing.queues.get('hook');
    expect(await queue?.getJobCounts('completed', 'wait', 'delayed')).toEqual({
      completed: 0,
      wait: 0,
      delayed: 0,
    });

    await eventually(async () => (await listed()).lastHour.delivered === 3, 'three delivered');
    const row = await listed();
    expect(row).toMatchObject({
      state: 'running',
      failing: null,
      lastHour: { delivered: 3, retrying: 0, failed: 0 },
      last: { result: 'delivered', attempt: 1, error: null },
    });
    expect(row.p95DeliveryMs).toEqual(expect.any(Number));
    expect(await stateGauge()).toMatchObject({ running: 1, failing: 0, paused: 0 });
  });

  it('shows a route whose destination refuses connections as failing, inline attempt first', async () => {
    await receiver.close();
    const eventId = await send();

    await eventually(async () => (await listed()).lastHour.retrying >= 3, 'three failed attempts');
    const row = await listed();
    expect(row.state).toBe('failing');
    expect(row.failing?.attempts).toBeGreaterThanOrEqual(3);
    expect(row.failing?.lastError).toContain('ECONNREFUSED');
    expect(row.last).toMatchObject({ result: 'retrying', eventId });
    expect(await stateGauge()).toMatchObject({ running: 0, failing: 1 });

    const queue = routing.queues.get('hook');
    if (queue === undefined) throw new Error('no queue');
    const figures = await readRouteFigures(connection, queue);
    // The oldest failure kept is attempt 1, made inline (no route job yet).
    expect(figures.recentFailures.at(-1)).toMatchObject({
      attempt: 1,
      jobId: null,
      eventId,
      institution: '01ABC_INST',
      outcome: 'retrying',
      error: expect.stringContaining('ECONNREFUSED'),
    });

    const io = captureIo(env);
    await runCli(['routes'], io);
    expect(io.stdout()).toMatch(
      /hook {2}http {2}POST \S+ {2}FAILING since \S+ \(\d+ attempts failed: .*ECONNREFUSED/,
    );
  });

  it('ends the failing state with the next delivery', async () => {
    receiver.answer(503);
    await send();
    await eventually(async () => (await listed()).state === 'failing', 'failing');
    receiver.answer(200);
    await eventually(async () => (await listed()).state === 'running', 'running again', 15_000);
    expect(await listed()).toMatchObject({ failing: null, last: { result: 'delivered' } });
  });

  it("reads one institution's figures apart", async () => {
    await send('LIB_A');
    await send('LIB_A');
    // A code with a space (none is expected) stays one institution.
    await send('LIB B');
    const queue = routing.queues.get('hook');
    if (queue === undefined) throw new Error('no queue');
    await eventually(
      async () => (await readRouteFigures(connection, queue)).lastHour.delivered === 3,
      'three delivered',
    );
    const a = await readRouteFigures(connection, queue, { institution: 'LIB_A' });
    const b = await readRouteFigures(connection, queue, { institution: 'LIB B' });
    const c = await readRouteFigures(connection, queue, { institution: 'LIB_C' });
    expect([a.lastHour.delivered, b.lastHour.delivered, c.lastHour.delivered]).toEqual([2, 1, 0]);
    expect(b.p95DeliveryMs).toEqual(expect.any(Number));
    expect(b.last).toMatchObject({ result: 'delivered' });
    expect(c.last).toBeNull();
    expect(c.p95DeliveryMs).toBeNull();
  });

  it("agrees with the receiver's own count after a mixed run: inline, retried, paused, replayed", async () => {
    const run = async (...argv: string[]): Promise<void> => {
      expect(await runCli(argv, captureIo(env))).toBe(0);
    };
    // Delivered inline.
    for (let index = 0; index < 3; index += 1) await send();
    // Retried: refused twice, then taken.
    receiver.answer(503);
    await send();
    await eventually(() => receiver.requests() >= 6, 'two refusals');
    receiver.answer(200);
    await eventually(() => receiver.accepted.length === 4, 'the retried delivery');
    // A paused window: held, then delivered after resume.
    await run('routes', 'pause', 'hook');
    await send();
    await send();
    await run('routes', 'resume', 'hook');
    await eventually(() => receiver.accepted.length === 6, 'the held deliveries');
    // Refused for good (422: not retried), then replayed.
    receiver.answer(422);
    const refused = await send();
    const queue = routing.queues.get('hook');
    await eventually(async () => (await queue?.getFailedCount()) === 1, 'the failed delivery');
    receiver.answer(200);
    await run('routes', 'replay', 'hook', refused);
    await eventually(() => receiver.accepted.length === 7, 'the replayed delivery');

    await eventually(
      async () => (await listed()).lastHour.delivered === receiver.accepted.length,
      'the figures to agree with the receiver',
    );
    const row = await listed();
    expect(row.lastHour.delivered).toBe(7);
    // Every refusal the receiver answered is an attempt counted as retrying or failed.
    expect(row.lastHour.retrying + row.lastHour.failed).toBe(
      receiver.requests() - receiver.accepted.length,
    );
    expect(row).toMatchObject({ state: 'running', failing: null, last: { result: 'delivered' } });
  });
});
