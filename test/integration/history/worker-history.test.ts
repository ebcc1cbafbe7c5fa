import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig, WorkerConfig } from '../../../src/config';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import {
  deriveHistoryKeys,
  historyJourney,
  historyStreamKey,
  outboxBacklog,
} from '../../../src/history';
import type { JourneyStep, SqlExecutor } from '../../../src/history';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { createWorkerMetrics } from '../../../src/metrics/worker-metrics';
import type { WorkerMetrics } from '../../../src/metrics/worker-metrics';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { eventually, routeEvent, silentLogger } from '../../component/routes/support/route-events';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startStoppableProxy } from '../../helpers/stoppable-proxy';
import type { StoppableProxy } from '../../helpers/stoppable-proxy';
import { hostAndPort, TEST_POSTGRES_URL } from '../../helpers/test-services';

const HISTORY_KEY = 'k'.repeat(40);

/** A real HTTP destination that refuses each event id's first `failures` deliveries with a 503. */
async function startFlakyReceiver(failures: number): Promise<{
  url: string;
  delivered: Set<string>;
  close: () => Promise<void>;
}> {
  const seen = new Map<string, number>();
  const delivered = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      if (count <= failures) return void res.writeHead(503).end();
      delivered.add(id);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hook`,
    delivered,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('the worker process records the event history', () => {
  let dir: string;
  let queueName: string;
  let schema: string;
  let queue: Queue;
  let redis: Redis;
  let db: SqlExecutor | undefined;
  let proxy: StoppableProxy | undefined;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-worker-history-'));
    queueName = uniqueQueueName('worker-history');
    schema = uniqueSchema('wh');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    redis = new Redis(TEST_REDIS_URL);
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await db?.close();
    db = undefined;
    await proxy?.close();
    proxy = undefined;
    await queue.close();
    for (const name of [queueName, routeQueueName(queueName, 'circ')]) await obliterateQueue(name);
    await redis.del(historyStreamKey(queueName), `${historyStreamKey(queueName)}:records`);
    redis.disconnect();
    await dropSchema(schema);
    await rm(dir, { recursive: true, force: true });
  });

  async function startWorker(
    databaseUrl: string,
    routes: string,
    metrics?: WorkerMetrics,
  ): Promise<WorkerProcess> {
    const routesFile = join(dir, 'routes.yaml');
    await writeFile(routesFile, routes);
    const config = loadConfig(WorkerConfig, {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'unused',
      RECORDS_DIR: join(dir, 'records'),
      WORKER_CONCURRENCY: '8',
      ROUTES_FILE: routesFile,
      DATABASE_URL: databaseUrl,
      HISTORY_KEY,
      HISTORY_SCHEMA: schema,
    });
    const connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    const running = createWorkerProcess({
      config,
      logger: silentLogger,
      connection,
      env: {},
      ...(metrics === undefined ? {} : { metrics }),
      historyOptions: { openRetryMs: 100, writer: { retryMs: 100, blockMs: 100 } },
    });
    closers.push(async () => {
      await running.close();
      await closeRedis(connection);
    });
    return running;
  }

  const enqueue = (event: CanonicalEvent) =>
    createEventEnqueuer({ queue, dedupWindowHours: 1, attempts: 3 })(event);

  async function journeyOf(eventId: string): Promise<JourneyStep[]> {
    db ??= await openHistoryDatabase({ url: TEST_DATABASE_URL, schema, migrate: false });
    if (db === undefined) throw new Error('no history database');
    return historyJourney({ db, keys: deriveHistoryKeys(HISTORY_KEY) }, eventId);
  }

  const attemptsOf = (steps: JourneyStep[]) =>
    steps.flatMap((step) =>
      step.kind === 'attempt'
        ? [{ attempt: step.attempt, outcome: step.outcome, status: step.status }]
        : [],
    );

  it('shows a loan delivered after two refusals as three attempts in its journey', async () => {
    const receiver = await startFlakyReceiver(2);
    closers.push(receiver.close);
    await startWorker(
      TEST_DATABASE_URL,
      'routes:\n  - name: circ\n    match: { action: [LOAN] }\n' +
        `    to: { http: { url: "${receiver.url}" } }\n` +
        '    retry: { attempts: 5, backoffMs: 20 }\n    circuit: off\n',
    );
    const event = routeEvent();
    await enqueue(event);

    await eventually(
      async () => attemptsOf(await journeyOf(event.id).catch(() => [])).length === 3,
      'three attempts in the journey',
      20_000,
    );
    const steps = await journeyOf(event.id);
    expect(steps[0]?.kind).toBe('received');
    expect(attemptsOf(steps)).toEqual([
      { attempt: 1, outcome: 'retrying', status: 503 },
      { attempt: 2, outcome: 'retrying', status: 503 },
      { attempt: 3, outcome: 'delivered', status: null },
    ]);
    expect(receiver.delivered.has(event.id)).toBe(true);
  });

  it('goes on recording after hostile events: the next ordinary event is in the history within 5 s', async () => {
    const metrics = createWorkerMetrics();
    await startWorker(
      TEST_DATABASE_URL,
      'routes:\n  - name: circ\n    match: { action: [BIB] }\n' +
        '    to: { http: { url: "http://127.0.0.1:9/unused" } }\n',
      metrics,
    );
    // An incompressible 6 KB id (past btree's entry limit), a lone surrogate, a NUL in a loan id.
    await enqueue(routeEvent({ id: randomBytes(4500).toString('base64') }));
    await enqueue(routeEvent({ id: `lone-\ud800-${String(Date.now())}` }));
    await enqueue(routeEvent({ item_loan: { loan_id: '234\u0000001', user_id: 'u-1' } }));
    const ordinary = routeEvent();
    const enqueuedAt = Date.now();
    await enqueue(ordinary);

    await eventually(
      async () => (await journeyOf(ordinary.id).catch(() => [])).length > 0,
      'the ordinary event in the history',
      5000,
    );
    expect(Date.now() - enqueuedAt).toBeLessThan(5000);
    const metricsText = await metrics.registry.metrics();
    expect(metricsText).toMatch(/svcws_history_set_aside_total 0/);
    expect(metricsText).toMatch(/svcws_history_outbox_oldest_seconds \d/);
  });

  it('records a route its where: filter kept the event from as skipped', async () => {
    const receiver = await startFlakyReceiver(0);
    closers.push(receiver.close);
    await startWorker(
      TEST_DATABASE_URL,
      'routes:\n  - name: circ\n    match: { action: [LOAN], where: { item_loan.loan_id: [other] } }\n' +
        `    to: { http: { url: "${receiver.url}" } }\n`,
    );
    const event = routeEvent();
    await enqueue(event);

    await eventually(
      async () => attemptsOf(await journeyOf(event.id).catch(() => [])).length === 1,
      'the skipped route in the journey',
      20_000,
    );
    expect(attemptsOf(await journeyOf(event.id))).toEqual([
      { attempt: 0, outcome: 'skipped', status: null },
    ]);
    expect(receiver.delivered.size).toBe(0);
  });

  it('delivers every event while PostgreSQL is unreachable, and writes every row once it is back', async () => {
    proxy = await startStoppableProxy(hostAndPort(TEST_POSTGRES_URL));
    const receiver = await startFlakyReceiver(0);
    closers.push(receiver.close);
    const metrics = createWorkerMetrics();
    const { registry } = metrics;
    const url = new URL(TEST_DATABASE_URL);
    url.host = `127.0.0.1:${String(proxy.port)}`;
    await startWorker(
      url.toString(),
      'routes:\n  - name: circ\n    match: { action: [LOAN] }\n' +
        `    to: { http: { url: "${receiver.url}" } }\n    circuit: off\n`,
      metrics,
    );
    const first = routeEvent();
    await enqueue(first);
    await eventually(
      async () => (await journeyOf(first.id).catch(() => [])).length === 5,
      'history writing',
      20_000,
    );

    await proxy.stop();
    const burst = Array.from({ length: 50 }, () => routeEvent());
    for (const event of burst) await enqueue(event);
    await eventually(
      () => burst.every((event) => receiver.delivered.has(event.id)),
      'every delivery of the burst with PostgreSQL away',
      20_000,
    );
    // Each event's record, its take, its attempt and its end wait in Redis: 200 records, none
    // written (the last end is recorded just after its destination answered).
    await eventually(
      async () => (await outboxBacklog(redis, historyStreamKey(queueName))) >= 200,
      'the records of the burst in the outbox',
    );
    const backlog = await registry.getSingleMetricAsString('svcws_history_backlog');
    expect(Number(/svcws_history_backlog (\d+)/.exec(backlog)?.[1])).toBeGreaterThanOrEqual(200);

    await proxy.start();
    await eventually(
      async () => (await outboxBacklog(redis, historyStreamKey(queueName))) === 0,
      'the outbox drained',
      30_000,
    );
    for (const event of burst) {
      const steps = await journeyOf(event.id);
      expect(steps.map((step) => step.kind)).toEqual([
        'received',
        'queued',
        'taken',
        'attempt',
        'finished',
      ]);
    }
  });

  it('starts and delivers while PostgreSQL is away at start, and writes the history once it answers', async () => {
    proxy = await startStoppableProxy(hostAndPort(TEST_POSTGRES_URL));
    await proxy.stop();
    const receiver = await startFlakyReceiver(0);
    closers.push(receiver.close);
    const url = new URL(TEST_DATABASE_URL);
    url.host = `127.0.0.1:${String(proxy.port)}`;
    const running = await startWorker(
      url.toString(),
      'routes:\n  - name: circ\n    match: { action: [LOAN] }\n' +
        `    to: { http: { url: "${receiver.url}" } }\n    circuit: off\n`,
    );
    await running.worker.waitUntilReady();
    const event = routeEvent();
    await enqueue(event);
    await eventually(() => receiver.delivered.has(event.id), 'the delivery without PostgreSQL');
    // The event, its take, its attempt and its end (just after the destination answered) wait in
    // Redis.
    await eventually(
      async () => (await outboxBacklog(redis, historyStreamKey(queueName))) === 4,
      'four records in the outbox',
    );

    await proxy.start();
    await eventually(
      async () => (await journeyOf(event.id).catch(() => [])).length === 5,
      'the history written once PostgreSQL answers',
      20_000,
    );
  });
});
