import type { RedisClient } from '../../../src/redis/redis-client';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { captureLogger } from '../../helpers/capture-logger';
import type { CapturedLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startHttpReceiver } from './support/http-receiver';
import type { HttpReceiver } from './support/http-receiver';
import { eventually, routeEvent } from './support/route-events';
import { freePort } from '../../helpers/free-port';

describe('routing: the first attempt inline', () => {
  let dir: string;
  let receiver: HttpReceiver;
  let queueName: string;
  let routing: Routing | undefined;
  let log: CapturedLogger;
  let connection: RedisClient | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-inline-'));
    receiver = await startHttpReceiver();
    queueName = uniqueQueueName('inline');
    log = captureLogger();
  });
  afterEach(async () => {
    await routing?.close();
    if (connection !== undefined) await closeRedis(connection);
    for (const queue of routing?.queues.values() ?? []) await obliterateQueue(queue.name);
    routing = undefined;
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  function start(yaml: string, deadlineMs = 2000): Routing {
    const { routes } = parseRoutesFile(yaml, { DIR: dir, HOOK: receiver.url });
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
    routing = startRouting({
      connection,
      routes,
      redisUrl: TEST_REDIS_URL,
      queueName,
      logger: log.logger,
      inline: { deadlineMs },
    });
    return routing;
  }

  function queueOf(name: string): Queue {
    const queue = routing?.queues.get(name);
    if (queue === undefined) throw new Error(`no queue for route ${name}`);
    return queue;
  }

  async function archived(): Promise<string[]> {
    const day = new Date().toISOString().slice(0, 10);
    const text = await readFile(join(dir, 'archive', `${day}.jsonl`), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: string }).id);
  }

  /** The attempt numbers logged for a route, in order, with their outcome. */
  function attempts(route: string): string[] {
    return log
      .lines()
      .filter((line) => line.route === route && typeof line.attempt === 'number')
      .map((line) => `${String(line.attempt)} ${String(line.msg)}`);
  }

  /** Until the route workers run and each route's pause read (paused-state.ts) has answered. */
  const settle = (): Promise<void> => routing?.whenReady() ?? Promise.resolve();

  it('delivers on the happy path with no route job at all', async () => {
    const { fanOut } = start(`
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } } }
  - { name: archive, to: { file: { dir: "\${DIR}/archive" } } }
`);
    await settle();
    const event = routeEvent();

    expect(await fanOut(event, jobIdForEvent(event.id))).toEqual(['indexer', 'archive']);

    // Delivered by the time the fan-out resolved: the event job's own run made both.
    expect(receiver.accepted).toEqual([event.id]);
    expect(await archived()).toEqual([event.id]);
    for (const name of ['indexer', 'archive']) {
      const counts = await queueOf(name).getJobCounts('wait', 'delayed', 'completed', 'active');
      expect(counts).toEqual({ wait: 0, delayed: 0, completed: 0, active: 0 });
    }
    expect(attempts('indexer')).toEqual(['1 delivered']);
  });

  it('gives a route that fails inline its retries as route jobs, numbered from attempt 2', async () => {
    receiver.answer(503);
    const { fanOut } = start(`
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } }, retry: { attempts: 6, backoffMs: 100 } }
`);
    await settle();
    const event = routeEvent();
    await fanOut(event, jobIdForEvent(event.id));
    expect(receiver.requests()).toBe(1);
    await eventually(() => receiver.requests() >= 3, 'two retries from the route queue');
    receiver.answer(200);
    await eventually(() => receiver.accepted.length === 1, 'the delivery once the indexer is up');
    // The line is written once the answer is read, a moment after the receiver counted it.
    await eventually(
      () => attempts('indexer').at(-1)?.endsWith(' delivered') === true,
      'the delivered line',
    );

    const seen = attempts('indexer');
    expect(seen.slice(0, 3)).toEqual([
      '1 delivery failed: will be retried',
      '2 delivery failed: will be retried',
      '3 delivery failed: will be retried',
    ]);
    expect(seen.at(-1)).toBe(`${String(seen.length)} delivered`);
    const job = await queueOf('indexer').getJob(jobIdForEvent(event.id));
    // Six attempts in all: one inline, five left for the route job.
    expect(job?.opts.attempts).toBe(5);
  });

  it('spends the last attempt inline into the failed set, and a replay delivers it', async () => {
    receiver.answer(422);
    const { fanOut } = start(`
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } }, retry: { attempts: 5, backoffMs: 100 } }
`);
    await settle();
    const event = routeEvent();
    await fanOut(event, jobIdForEvent(event.id));
    const queue = queueOf('indexer');
    await eventually(async () => (await queue.getFailedCount()) === 1, 'the failed set');
    const [failed] = await queue.getFailed();
    expect(failed?.failedReason).toContain('HTTP 422');
    // A 4xx is not retried: one request, one failure line, made inline.
    expect(receiver.requests()).toBe(1);
    expect(attempts('indexer')).toEqual(['1 delivery failed: moved to the route failed set']);

    receiver.answer(200);
    await failed?.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    await eventually(() => receiver.accepted.length === 1, 'the replayed delivery');
    expect(receiver.accepted).toEqual([event.id]);
  });

  it('sends a paused route nothing inline and drains it on resume', async () => {
    const { fanOut } = start(`
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } } }
  - { name: archive, to: { file: { dir: "\${DIR}/archive" } } }
`);
    // Paused from elsewhere (`routes pause`, another process): seen within half a second.
    const operator = new Queue(queueOf('indexer').name, { connection: { url: TEST_REDIS_URL } });
    try {
      await operator.pause();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const events = [routeEvent(), routeEvent(), routeEvent()];
      for (const event of events) await fanOut(event, jobIdForEvent(event.id));

      expect((await archived()).sort()).toEqual(events.map((event) => event.id).sort());
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.requests()).toBe(0);
      expect(await queueOf('indexer').getJobCounts('wait')).toEqual({ wait: 3 });

      await operator.resume();
      await eventually(() => receiver.accepted.length === 3, 'the deliveries after resume');
      expect(receiver.accepted.sort()).toEqual(events.map((event) => event.id).sort());
    } finally {
      await operator.close();
    }
  });

  it('keeps a rate-limited route within its rate, inline attempts and route jobs together', async () => {
    const { fanOut } = start(`
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } }, ratePerSecond: 5 }
`);
    await settle();
    const events = Array.from({ length: 12 }, () => routeEvent());
    await Promise.all(events.map((event) => fanOut(event, jobIdForEvent(event.id))));
    // At least the first went inline: no job for it.
    expect(await queueOf('indexer').count()).toBeLessThan(events.length);

    await eventually(() => receiver.accepted.length === events.length, 'every delivery', 20_000);
    // 5 per second: any six deliveries in a row span a second (less what arrival times jitter).
    const gaps = receiver.times.slice(5).map((time, i) => time - (receiver.times[i] ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(900);
  });

  it('holds the route job of an inline attempt slower than the deadline, and removes it once that attempt delivers', async () => {
    receiver.delay(1500);
    const { fanOut } = start(
      `
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } }, retry: { attempts: 5, backoffMs: 100 } }
  - { name: archive, to: { file: { dir: "\${DIR}/archive" } } }
`,
      300,
    );
    await settle();
    const event = routeEvent();
    const started = performance.now();
    await fanOut(event, jobIdForEvent(event.id));

    // The other routes did not wait for the slow one.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await archived()).toEqual([event.id]);
    const job = await queueOf('indexer').getJob(jobIdForEvent(event.id));
    expect(await job?.getState()).toBe('delayed');
    // Held for what the attempt may still take: 2 × the adapter's 10 s, a second, less the deadline.
    expect(job?.opts.delay).toBe(20_700);
    await eventually(() => receiver.accepted.length >= 1, 'the late answer');
    await eventually(
      async () => (await queueOf('indexer').getJob(jobIdForEvent(event.id))) === undefined,
      'the held route job removed',
    );
    expect(receiver.accepted).toEqual([event.id]);
    expect(attempts('indexer')).toEqual(['1 delivered']);
  });

  /** One event through an indexer that answers `status` after 1.5 s, past a 300 ms deadline. */
  async function lateAnswered(status: number): Promise<string> {
    receiver.delay(1500);
    receiver.answer(status);
    const { fanOut } = start(
      `
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } }, retry: { attempts: 5, backoffMs: 100 } }
`,
      300,
    );
    await settle();
    const event = routeEvent();
    await fanOut(event, jobIdForEvent(event.id));
    return event.id;
  }

  it('lets the held route job run after its backoff once the late inline attempt fails', async () => {
    const id = await lateAnswered(503);
    await eventually(() => receiver.requests() >= 1, 'the late attempt answered');
    receiver.delay(0);
    receiver.answer(200);
    // Well before the 20.7 s hold: the job follows the attempt's outcome, not the hold.
    await eventually(
      () => attempts('indexer').includes('2 delivered'),
      'attempt 2 delivered by the route job',
      8000,
    );
    expect(attempts('indexer')).toEqual(['1 delivery failed: will be retried', '2 delivered']);
    expect(receiver.accepted).toEqual([id]);
  });

  it('puts the delivery in the failed set when the late inline attempt ends it', async () => {
    await lateAnswered(400);
    await eventually(
      async () => (await queueOf('indexer').getJobCounts('failed')).failed === 1,
      'the delivery in the failed set',
    );
    expect(receiver.requests()).toBe(1);
    expect(attempts('indexer')).toEqual(['1 delivery failed: moved to the route failed set']);
  });

  it('names the event and the outcome on each attempt line, with the status or the code of a failure', async () => {
    receiver.answer(422);
    // A port nothing listens on (fetch refuses some well-known ones, 9 among them, by itself).
    const closed = await freePort();
    const { fanOut } = start(`
routes:
  - { name: indexer, to: { http: { url: "\${HOOK}" } }, retry: { attempts: 2, backoffMs: 100 } }
  - { name: nowhere, to: { http: { url: "http://127.0.0.1:${String(closed)}/hook" } }, retry: { attempts: 2, backoffMs: 60000 } }
  - { name: archive, to: { file: { dir: "\${DIR}/archive" } } }
  - name: other-library
    match: { where: { item_loan.loan_id: [elsewhere] } }
    to: { file: { dir: "\${DIR}/other" } }
`);
    await settle();
    const event = routeEvent();
    const about = {
      institution: '01ABC_INST',
      action: 'loan',
      event: 'LOAN_CREATED',
      eventId: event.id,
    };

    await fanOut(event, jobIdForEvent(event.id));

    const lineOf = (route: string) => log.lines().find((line) => line.route === route);
    expect(lineOf('archive')).toMatchObject({
      ...about,
      level: 30,
      msg: 'delivered',
      outcome: 'delivered',
      attempt: 1,
      durationMs: expect.any(Number) as number,
      latencyMs: expect.any(Number) as number,
    });
    // The destination answered: its status, no code.
    expect(lineOf('indexer')).toMatchObject({
      ...about,
      msg: 'delivery failed: moved to the route failed set',
      outcome: 'failed',
      httpStatus: 422,
      durationMs: expect.any(Number) as number,
    });
    expect(lineOf('indexer')).not.toHaveProperty('errorCode');
    // Nothing answered: the failure's code, no status.
    expect(lineOf('nowhere')).toMatchObject({
      ...about,
      msg: 'delivery failed: will be retried',
      outcome: 'retrying',
      errorCode: 'ECONNREFUSED',
    });
    expect(lineOf('nowhere')).not.toHaveProperty('httpStatus');
    expect(lineOf('other-library')).toMatchObject({
      ...about,
      level: 30,
      msg: 'route skipped: its where: does not take the event',
      outcome: 'skipped',
    });
    // Inline: no route job, so no queueJobId; a failed attempt's line has no latency.
    expect(lineOf('archive')).not.toHaveProperty('queueJobId');
    expect(lineOf('indexer')).not.toHaveProperty('latencyMs');
  });
});
