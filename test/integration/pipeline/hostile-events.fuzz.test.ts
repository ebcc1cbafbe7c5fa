import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox } from '@svcws/sandbox';
import { historyStreamKey, outboxBacklog } from '../../../src/history';
import type { SqlExecutor } from '../../../src/history';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { createLogger } from '../../../src/logger';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { eventually } from '../../component/routes/support/route-events';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { readAnswer } from '../../helpers/raw-post';
import type { RawAnswer } from '../../helpers/raw-post';
import { TEST_REDIS_URL, obliterateQueue } from '../../helpers/redis';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';
import { ROUTE_NAMES, startEveryDestination } from './support/every-destination';
import type { EveryDestination } from './support/every-destination';
import { hostileCase, hostileDelivery, sentinelDelivery } from './support/hostile-event';
import type { HostileDelivery } from './support/hostile-event';

/** FUZZ_RUNS hostile events (each followed by an ordinary one); FUZZ_SEED replays a run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const SEED =
  process.env.FUZZ_SEED === undefined ? randomInt(2 ** 31) : Number(process.env.FUZZ_SEED);
/** The target: the ordinary event after a hostile one is in the history this soon. */
const NEXT_EVENT_WITHIN_MS = 5000;
/** A deadline, not a target: the first event after start-up, on a busy machine. */
const WARM_UP_WITHIN_MS = 60_000;
const HISTORY_KEY = 'fuzz-history-key-of-at-least-32-characters';

jest.setTimeout(Math.max(240_000, RUNS * 4000));

describe('the whole pipeline under hostile events', () => {
  const schema = uniqueSchema('fuzz');
  let dir: string;
  let sandbox: RunningSandbox;
  let listener: ListenerUnderTest;
  let server: Server;
  let url: string;
  let destinations: EveryDestination;
  let worker: ChildWorker;
  let db: SqlExecutor;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-fuzz-'));
    sandbox = await createSandbox({
      logger: createLogger({ level: 'silent', name: 'sandbox' }),
      config: { SANDBOX_JOB_DURATION_MS: 0 },
    }).start(0);
    listener = listenerUnderTest({ rejectedMaxCount: 10_000 });
    server = listener.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/webhooks`;
    destinations = await startEveryDestination(dir);
    worker = spawnWorker('test/integration/worker/support/worker-child.ts', {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: listener.queueName,
      SVC_BASE_URL: sandbox.url,
      SVC_API_KEY: 'sandbox-key',
      RECORDS_DIR: join(dir, 'records'),
      WORKER_CONCURRENCY: '4',
      WORKER_METRICS_PORT: '0',
      ROUTES_FILE: await destinations.writeRoutes(dir),
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY,
      HISTORY_SCHEMA: schema,
    });
    await worker.waitForLine((line) => line.msg === 'worker ready');
    const opened = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema });
    if (opened === undefined) throw new Error('no history database');
    db = opened;
  });

  afterAll(async () => {
    if (worker.child.exitCode === null) worker.child.kill('SIGTERM');
    await worker.exited();
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener.close();
    await sandbox.close();
    await destinations.close();
    await db.close();
    await dropSchema(schema);
    const redis = new Redis(TEST_REDIS_URL);
    await redis.del(historyStreamKey(listener.queueName));
    redis.disconnect();
    for (const route of ROUTE_NAMES)
      await obliterateQueue(routeQueueName(listener.queueName, route));
    await rm(dir, { recursive: true, force: true });
  });

  function post(delivery: HostileDelivery, requestId: string): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': delivery.contentType,
          'Content-Length': String(delivery.body.length),
          'X-Svc-Signature': signWebhookBody(TEST_SECRET, delivery.body),
          'X-Request-Id': requestId,
        },
      });
      req.on('response', (res) => void readAnswer(res).then(resolve, reject));
      req.on('error', reject);
      req.end(delivery.body);
    });
  }

  async function inHistory(eventId: string): Promise<boolean> {
    const found = await db.query('SELECT 1 FROM events WHERE event_id = $1', [eventId]);
    return found.rows.length > 0;
  }

  /** The routes whose last attempt at the event delivered it. */
  async function deliveredRoutes(eventId: string): Promise<string[]> {
    const rows = await db.query<{ route: string }>(
      "SELECT DISTINCT route FROM attempts WHERE event_id = $1 AND outcome = 'delivered'",
      [eventId],
    );
    return rows.rows.map((row) => row.route).sort();
  }

  it('keeps every process up, accounts for every event, and keeps the line moving', async () => {
    const accepted: string[] = [];
    const refused: string[] = [];
    const sentinels: string[] = [];
    const cases = new Map<string, unknown>();
    let count = 0;
    const token = listener.queueName.slice(-8);
    // The first event after start-up pays the cold costs (connections, the history's first
    // writes, the JIT): the target is for the line once it moves, so one goes through first.
    sentinels.push(await ordinaryEventFlows(`${token}-warm`, WARM_UP_WITHIN_MS));

    await fc.assert(
      fc.asyncProperty(hostileCase, async (hostile) => {
        count += 1;
        const unique = `${token}-${String(count)}`;
        const answer = await post(hostileDelivery(hostile, unique), `fuzz-${unique}`);
        expect([200, 400]).toContain(answer.status);
        if (answer.status === 200) {
          const { id } = JSON.parse(answer.text) as { id: string };
          accepted.push(id);
          cases.set(id, hostile);
        } else refused.push(`fuzz-${unique}`);

        sentinels.push(await ordinaryEventFlows(`${token}-s${String(count)}`));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );

    expect(worker.child.exitCode).toBeNull();
    await expectEveryAcceptedAccountedFor(accepted, cases);
    const rejected = new Set((await listener.rejected.list()).map((entry) => entry.requestId));
    expect(refused.filter((requestId) => !rejected.has(requestId))).toEqual([]);
    await expectAtEveryDestinationAndOutboxDrained(sentinels);
    expect(worker.child.exitCode).toBeNull();
    await reportFigures(count, accepted, refused);
  });

  /** Posts an ordinary LOAN: in the history within 5 s, delivered on every route; its id. */
  async function ordinaryEventFlows(id: string, within = NEXT_EVENT_WITHIN_MS): Promise<string> {
    const sentinel = sentinelDelivery(id);
    expect((await post(sentinel, `fuzz-${id}`)).status).toBe(200);
    await eventually(() => inHistory(id), 'the ordinary event in the history', within);
    await eventually(
      async () => (await deliveredRoutes(id)).length === ROUTE_NAMES.length,
      'the ordinary event delivered on every route',
      15_000,
    );
    return id;
  }

  /** Every ordinary event at every destination (read there), and no history record left waiting. */
  async function expectAtEveryDestinationAndOutboxDrained(sentinels: string[]): Promise<void> {
    const received = await destinations.receivedIds();
    for (const route of ROUTE_NAMES) {
      expect({ route, missing: sentinels.filter((id) => !received[route].has(id)) }).toEqual({
        route,
        missing: [],
      });
    }
    const redis = new Redis(TEST_REDIS_URL);
    try {
      await eventually(
        async () => (await outboxBacklog(redis, historyStreamKey(listener.queueName))) === 0,
        'the outbox drained',
        30_000,
      );
    } finally {
      redis.disconnect();
    }
  }

  /** Each accepted event is in the history or set aside, and each route ended it: delivered or failed. */
  async function expectEveryAcceptedAccountedFor(
    accepted: readonly string[],
    cases: ReadonlyMap<string, unknown>,
  ): Promise<void> {
    let missing: string[] = [];
    const deadline = Date.now() + 60_000;
    do {
      missing = [];
      for (const id of accepted) {
        const stored = await db.query(
          `SELECT 1 FROM events WHERE event_id = $1 UNION ALL SELECT 1 FROM set_aside WHERE event_id = $1`,
          [id],
        );
        if (stored.rows.length === 0) missing.push(`${id}: not in the history`);
        const ended = await db.query<{ route: string }>(
          `SELECT DISTINCT route FROM attempts WHERE event_id = $1 AND outcome IN ('delivered', 'failed')`,
          [id],
        );
        const asideAttempts = await db.query(
          "SELECT 1 FROM set_aside WHERE event_id = $1 AND record_type <> 'event'",
          [id],
        );
        if (ended.rows.length < ROUTE_NAMES.length && asideAttempts.rows.length === 0)
          missing.push(`${id}: ended on ${ended.rows.map((row) => row.route).join(',')}`);
      }
      if (missing.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    } while (Date.now() < deadline);
    const lost = accepted.filter((id) => missing.some((line) => line.startsWith(`${id}:`)));
    const workerSaid = worker
      .lines()
      .filter((line) =>
        lost.some((id) => JSON.stringify(line).includes(JSON.stringify(id).slice(1, 20))),
      );
    expect({ seed: SEED, missing, cases: lost.map((id) => cases.get(id)), workerSaid }).toEqual({
      seed: SEED,
      missing: [],
      cases: [],
      workerSaid: [],
    });
  }

  /** The figures of the run, on stdout: how many were refused, set aside, failed, and why refused. */
  async function reportFigures(generated: number, accepted: string[], refused: string[]) {
    const aside = await db.query<{ n: string }>('SELECT count(*) AS n FROM set_aside');
    const failed = await db.query<{ route: string; error: string | null; n: string }>(
      `SELECT route, right(error, 70) AS error, count(DISTINCT event_id) AS n FROM attempts
        WHERE outcome = 'failed' GROUP BY 1, 2 ORDER BY 3 DESC`,
    );
    const failures = failed.rows.reduce((sum, row) => sum + Number(row.n), 0);
    const reasons = new Map<string, number>();
    for (const entry of await listener.rejected.list()) {
      // The reason's kind, without the position: "invalid_event: id: longer than 255 bytes".
      const kind = entry.reason.replace(/\d+/g, 'N').slice(0, 60);
      reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
    }
    process.stdout.write(
      `fuzz (seed ${String(SEED)}): ${String(generated)} hostile events, ${String(accepted.length)} accepted, ` +
        `${String(refused.length)} refused at the door, ${aside.rows[0]?.n ?? '?'} records set aside, ` +
        `${String(failures)} deliveries failed (event × route)\n` +
        [...reasons].map(([reason, n]) => `  refused ${String(n)}×: ${reason}\n`).join('') +
        failed.rows
          .map((row) => `  failed ${row.n}× on ${row.route}: ${row.error ?? ''}\n`)
          .join(''),
    );
  }
});
