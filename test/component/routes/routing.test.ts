import type { RedisClient } from '../../../src/redis/redis-client';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { routeJobOptions } from '../../../src/routes/create-fan-out';
import { captureLogger } from '../../helpers/capture-logger';
import type { CapturedLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startHttpReceiver } from './support/http-receiver';
import type { HttpReceiver } from './support/http-receiver';
import { eventually, routeEvent } from './support/route-events';

function queueOf(queues: Routing['queues'], name: string): Queue {
  const queue = queues.get(name);
  if (queue === undefined) throw new Error(`no queue for route ${name}`);
  return queue;
}

describe('routing: fan-out to one queue per route', () => {
  let dir: string;
  let receiver: HttpReceiver;
  let queueName: string;
  let routing: Routing | undefined;
  let log: CapturedLogger;
  let registry: Registry;
  let connection: RedisClient | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-routes-'));
    receiver = await startHttpReceiver();
    queueName = uniqueQueueName('routes');
    log = captureLogger();
    registry = new Registry();
  });
  afterEach(async () => {
    await routing?.close();
    if (connection !== undefined) await closeRedis(connection);
    for (const queue of routing?.queues.values() ?? []) await obliterateQueue(queue.name);
    routing = undefined;
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  function start(yaml: string): Routing {
    const { routes } = parseRoutesFile(yaml, { DIR: dir, HOOK: receiver.url });
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
    routing = startRouting({
      connection,
      routes,
      redisUrl: TEST_REDIS_URL,
      queueName,
      logger: log.logger,
      registry,
    });
    return routing;
  }

  async function archived(name: string): Promise<string[]> {
    const day = new Date().toISOString().slice(0, 10);
    const text = await readFile(join(dir, name, `${day}.jsonl`), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: string }).id);
  }

  it('delivers each event to the routes whose filters it passes, once, however often it is fanned out', async () => {
    const { fanOut, queues } = start(`
routes:
  - { name: loans, match: { action: [loan] }, to: { file: { dir: "\${DIR}/loans" } } }
  - { name: bibs, match: { action: [bib] }, to: { file: { dir: "\${DIR}/bibs" } } }
  - { name: other-inst, match: { institution: [OTHER] }, to: { file: { dir: "\${DIR}/other" } } }
  - { name: archive, to: { file: { dir: "\${DIR}/archive" } } }
`);
    const loan = routeEvent({ action: 'loan' });
    const bib = routeEvent({ action: 'bib', event: undefined });
    expect(await fanOut(loan, jobIdForEvent(loan.id))).toEqual(['loans', 'archive']);
    expect(await fanOut(bib, jobIdForEvent(bib.id))).toEqual(['bibs', 'archive']);
    // A worker killed between two adds: one route's job is there, the event job runs again.
    const partial = routeEvent({ action: 'loan' });
    const archiveQueue = queues.get('archive');
    const [archiveRoute] = parseRoutesFile(
      'routes: [{ name: archive, to: { file: { dir: x } } }]',
      {},
    ).routes;
    if (archiveRoute === undefined) throw new Error('no route');
    await archiveQueue?.add('loan', partial, {
      ...routeJobOptions(archiveRoute, 48),
      jobId: jobIdForEvent(partial.id),
    });
    await fanOut(partial, jobIdForEvent(partial.id));
    await eventually(async () => (await archived('archive')).length === 3, 'three archived events');
    // A redelivered webhook, after delivery: the same event id fans out to nothing new.
    await fanOut(loan, jobIdForEvent(loan.id));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await archived('archive')).sort()).toEqual([loan.id, bib.id, partial.id].sort());
    expect((await archived('loans')).sort()).toEqual([loan.id, partial.id].sort());
    expect(await archived('bibs')).toEqual([bib.id]);
    expect(await archived('other')).toEqual([]);
    const delivered = log
      .lines()
      .filter((line) => line.msg === 'delivered' && line.route === 'archive');
    expect(delivered).toHaveLength(3);
    expect(delivered[0]).toMatchObject({
      destination: 'file',
      attempt: 1,
      durationMs: expect.any(Number) as unknown,
    });
    const metrics = await registry.metrics();
    expect(metrics).toContain('svcws_route_delivered_total{route="archive"} 3');
    expect(metrics).toContain('svcws_route_delivery_latency_seconds_count{route="loans"} 2');
    expect(metrics).toMatch(/svcws_route_waiting\{route="bibs"\} 0/);
  });

  it('retries a destination that is down until it is up, without delaying the other routes', async () => {
    receiver.answer(503);
    const { fanOut } = start(`
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } }, retry: { attempts: 20, backoffMs: 100 } }
  - { name: archive, to: { file: { dir: "\${DIR}/archive" } } }
`);
    const events = [routeEvent(), routeEvent(), routeEvent()];
    for (const event of events) await fanOut(event, jobIdForEvent(event.id));
    await eventually(
      async () => (await archived('archive')).length === 3,
      'the archive, while the indexer is down',
    );
    await eventually(() => receiver.requests() >= 6, 'retries of the indexer');
    expect(receiver.accepted).toEqual([]);
    receiver.answer(200);
    await eventually(() => receiver.accepted.length === 3, 'the indexer, once up');
    expect(receiver.accepted.sort()).toEqual(events.map((event) => event.id).sort());
    expect(
      log
        .lines()
        .some(
          (line) => line.msg === 'delivery failed: will be retried' && line.route === 'indexer',
        ),
    ).toBe(true);
    expect(await registry.metrics()).toMatch(/svcws_route_retried_total\{route="indexer"\} [1-9]/);
  });

  it('fails a 4xx at once into the failed set, and a replay delivers it', async () => {
    receiver.answer(422);
    const { fanOut, queues } = start(`
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } }, retry: { attempts: 5, backoffMs: 100 } }
`);
    const event = routeEvent();
    await fanOut(event, jobIdForEvent(event.id));
    const queue = queueOf(queues, 'indexer');
    await eventually(async () => (await queue.getFailedCount()) === 1, 'the failed set');
    const [failed] = await queue.getFailed();
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toContain('HTTP 422');
    expect(receiver.requests()).toBe(1);
    expect(
      log.lines().find((line) => line.msg === 'delivery failed: moved to the route failed set'),
    ).toMatchObject({
      eventId: event.id,
      route: 'indexer',
      destination: 'http',
      attempt: 1,
    });
    receiver.answer(200);
    await failed?.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    await eventually(() => receiver.accepted.length === 1, 'the replayed delivery');
    expect(receiver.accepted).toEqual([event.id]);
  });

  it('holds deliveries while the route is paused and sends them on resume', async () => {
    const { fanOut, queues } = start(`
routes:
  - { name: archive, to: { file: { dir: "\${DIR}/archive" } } }
`);
    const queue = queueOf(queues, 'archive');
    await queue.pause();
    const event = routeEvent();
    await fanOut(event, jobIdForEvent(event.id));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await archived('archive')).toEqual([]);
    expect(await queue.getJobCounts('wait')).toEqual({ wait: 1 });
    await queue.resume();
    await eventually(
      async () => (await archived('archive')).length === 1,
      'the delivery after resume',
    );
  });
});
