import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig, WorkerConfig } from '../../../src/config';
import { CanonicalEvent } from '../../../src/events/canonical-event';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { deriveHistoryKeys, historyJourney, historyStreamKey } from '../../../src/history';
import type { JourneyStep, SqlExecutor } from '../../../src/history';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import type { HandlerEntry } from '../../../src/worker/handler-entry';
import { defineHandler } from '../../../src/worker/handler-registry';
import { eventually, routeEvent, silentLogger } from '../../component/routes/support/route-events';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

const HISTORY_KEY = 'j'.repeat(40);

/** A real HTTP destination answering 200 to every delivery; with `hold`, never answering. */
async function startReceiver(
  hold = false,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    req.resume();
    if (!hold) req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hook`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A loan handler whose runs wait for `release`; the first `failures` runs then throw. */
function loanHandler(failures: number): { entry: HandlerEntry; release: () => void } {
  let runs = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const entry: HandlerEntry = {
    action: 'loan',
    create: () =>
      defineHandler({
        action: 'loan',
        payload: CanonicalEvent,
        handle: async () => {
          runs += 1;
          await released;
          if (runs <= failures) throw new Error('not yet');
          return 'done';
        },
      }),
  };
  return { entry, release };
}

describe('the journey has every step: received, queued, taken, attempts, finished', () => {
  let dir: string;
  let queueName: string;
  let schema: string;
  let queue: Queue;
  let db: SqlExecutor | undefined;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-journey-'));
    queueName = uniqueQueueName('journey');
    schema = uniqueSchema('js');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await db?.close();
    db = undefined;
    await queue.close();
    for (const name of [queueName, routeQueueName(queueName, 'circ')]) await obliterateQueue(name);
    const redis = new Redis(TEST_REDIS_URL);
    await redis.del(historyStreamKey(queueName), `${historyStreamKey(queueName)}:records`);
    redis.disconnect();
    await dropSchema(schema);
    await rm(dir, { recursive: true, force: true });
  });

  /** The worker's environment, its routes file (one route to `receiver`, or none) written. */
  async function workerEnv(receiver?: string, inline = 'on'): Promise<Record<string, string>> {
    const routesFile = join(dir, 'routes.yaml');
    await writeFile(
      routesFile,
      receiver === undefined
        ? 'routes: []\n'
        : 'routes:\n  - name: circ\n    match: { action: [LOAN] }\n' +
            `    to: { http: { url: "${receiver}" } }\n    circuit: off\n`,
    );
    return {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'unused',
      RECORDS_DIR: join(dir, 'records'),
      ROUTES_FILE: routesFile,
      ROUTE_INLINE: inline,
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY,
      HISTORY_SCHEMA: schema,
    };
  }

  async function startWorker(
    options: { inline?: 'on' | 'off'; receiver?: string; handlers?: HandlerEntry[] } = {},
    tuning?: { lockDuration: number; stalledInterval: number },
  ): Promise<void> {
    const config = loadConfig(WorkerConfig, await workerEnv(options.receiver, options.inline));
    const connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    const running = createWorkerProcess({
      config,
      logger: silentLogger,
      connection,
      env: {},
      ...(options.handlers === undefined ? {} : { handlers: options.handlers }),
      ...(tuning === undefined ? {} : { tuning }),
      historyOptions: { openRetryMs: 100, writer: { retryMs: 100, blockMs: 100 } },
    });
    closers.push(async () => {
      await running.close();
      await closeRedis(connection);
    });
  }

  const enqueue = (event: CanonicalEvent) =>
    createEventEnqueuer({ queue, dedupWindowHours: 1, attempts: 3, backoffDelayMs: 20 })(event);

  async function journeyOf(eventId: string): Promise<JourneyStep[]> {
    db ??= await openHistoryDatabase({ url: TEST_DATABASE_URL, schema, migrate: false });
    if (db === undefined) throw new Error('no history database');
    return historyJourney({ db, keys: deriveHistoryKeys(HISTORY_KEY) }, eventId);
  }

  async function journeyUntil(
    eventId: string,
    done: (steps: JourneyStep[]) => boolean,
    what: string,
  ): Promise<JourneyStep[]> {
    let steps: JourneyStep[] = [];
    await eventually(
      async () => {
        steps = await journeyOf(eventId).catch(() => []);
        return done(steps);
      },
      what,
      60_000,
    );
    return steps;
  }

  const has = (kind: JourneyStep['kind']) => (steps: JourneyStep[]) =>
    steps.some((step) => step.kind === kind);
  const times = (steps: JourneyStep[]) => steps.map((step) => Date.parse(step.at));
  const nonDecreasing = (values: number[]) =>
    values.every((value, i) => i === 0 || value >= (values[i - 1] ?? Infinity));

  it('a loan routed inline: received, queued, taken, its inline attempt, finished — in that order', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    await startWorker({ inline: 'on', receiver: receiver.url });
    const event = routeEvent();
    const { jobId } = await enqueue(event);

    const steps = await journeyUntil(event.id, has('finished'), 'the finished step');

    expect(steps.map((step) => step.kind)).toEqual([
      'received',
      'queued',
      'taken',
      'attempt',
      'finished',
    ]);
    expect(nonDecreasing(times(steps))).toBe(true);
    expect(steps[0]?.at).toBe(event.meta?.receivedAt);
    expect(steps[1]).toMatchObject({ kind: 'queued', by: 'listener', jobId });
    expect(steps[2]).toMatchObject({ kind: 'taken', run: 1, jobId, endedAt: steps[4]?.at });
    expect(steps[3]).toMatchObject({ kind: 'attempt', path: 'inline', outcome: 'delivered' });
    expect(steps[4]).toMatchObject({ kind: 'finished', outcome: 'completed', run: 1, jobId });
  });

  it('a loan routed through its route queue: the queued attempt comes after the take', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    await startWorker({ inline: 'off', receiver: receiver.url });
    const event = routeEvent();
    await enqueue(event);

    const steps = await journeyUntil(
      event.id,
      (found) => has('finished')(found) && has('attempt')(found),
      'the finished step and the queued attempt',
    );

    const kinds = steps.map((step) => step.kind);
    expect(kinds.slice(0, 3)).toEqual(['received', 'queued', 'taken']);
    expect([...kinds].sort()).toEqual(['attempt', 'finished', 'queued', 'received', 'taken']);
    expect(steps.find((step) => step.kind === 'attempt')).toMatchObject({
      path: 'queued',
      outcome: 'delivered',
    });
    expect(nonDecreasing(times(steps))).toBe(true);
  });

  it('a run that failed and was retried: each take, the run given back, then finished', async () => {
    const loan = loanHandler(1);
    await startWorker({ handlers: [loan.entry] });
    const event = routeEvent();
    await enqueue(event);

    // While the first run works: taken, with no end recorded and no time made up.
    const running = await journeyUntil(event.id, has('taken'), 'the first take');
    expect(running.map((step) => step.kind)).toEqual(['received', 'queued', 'taken']);
    expect(running[2]).toMatchObject({ kind: 'taken', run: 1, endedAt: null });

    loan.release();
    const steps = await journeyUntil(event.id, has('finished'), 'the finished step');
    expect(steps.map((step) => step.kind)).toEqual([
      'received',
      'queued',
      'taken',
      'released',
      'taken',
      'finished',
    ]);
    expect(steps[3]).toMatchObject({ kind: 'released', run: 1, outcome: 'retrying' });
    expect(steps[4]).toMatchObject({ kind: 'taken', run: 2, endedAt: steps[5]?.at });
    expect(steps[5]).toMatchObject({ kind: 'finished', run: 2, outcome: 'completed' });
    expect(nonDecreasing(times(steps))).toBe(true);
  });

  it('a worker killed mid-run: its take has no end, the next worker’s run finishes', async () => {
    const held = await startReceiver(true);
    closers.push(held.close);
    // The inline delivery waits on a destination that never answers: the run is in flight.
    const env = { ...(await workerEnv(held.url)), ROUTE_INLINE_DEADLINE_MS: '60000' };
    // A lock that outlives a CPU-starved renewal: with 1.5 s, a child starved past it lost its lock,
    // aborted its own run and ended it before the kill (seen at load 13 on 2 cores). The next
    // worker takes the job once this lock has expired after the kill.
    const child: ChildWorker = spawnWorker('test/integration/worker/support/worker-child.ts', {
      ...env,
      TEST_LOCK_MS: '10000',
      TEST_STALLED_MS: '500',
    });
    closers.push(async () => {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill();
      await child.exited();
    });
    await child.waitForLine((line) => line.msg === 'worker ready');
    const event = routeEvent();
    await enqueue(event);
    await journeyUntil(event.id, has('taken'), 'the first take written');
    await eventually(() => held.requests() === 1, 'the inline delivery in flight');
    child.child.kill('SIGKILL');
    await child.exited();

    const receiver = await startReceiver();
    closers.push(receiver.close);
    await startWorker({ receiver: receiver.url }, { lockDuration: 1500, stalledInterval: 500 });
    const steps = await journeyUntil(event.id, has('finished'), 'the second run finished');

    const kinds = steps.map((step) => step.kind);
    expect(kinds.slice(0, 3)).toEqual(['received', 'queued', 'taken']);
    expect(kinds.at(-1)).toBe('finished');
    const takes = steps.filter((step) => step.kind === 'taken');
    expect(takes).toEqual([
      expect.objectContaining({ run: 1, endedAt: null }),
      expect.objectContaining({ run: 2, endedAt: steps.at(-1)?.at }),
    ]);
    expect(kinds.filter((kind) => kind === 'queued')).toHaveLength(1);
    expect(kinds).not.toContain('released');
    expect(nonDecreasing(times(steps))).toBe(true);
  });
});
