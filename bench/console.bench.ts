import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { ConsoleConfig, loadConfig } from '../src/config';
import { sha256Hex } from '../src/console';
import { createRejectedStore } from '../src/events/rejected-store';
import { openHistoryDatabase } from '../src/history/open-history-database';
import { createLogger } from '../src/logger';
import { createConsoleProcess } from '../src/processes/console-process';
import { closeRedis } from '../src/redis/close-redis';
import { openProducerConnection } from '../src/redis/open-producer-connection';
import { routeQueueName } from '../src/routes/route-queue-name';
import { load as loadHistory } from './history.bench';
import { NOT_PINNED } from './ingress/cores';
import { benchRedis } from './ingress/private-redis';
import { benchPostgres } from './routing/bench-postgres';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const TOKEN = 'bench-console-operator-token';
/** BENCH_HISTORY=off: the live calls only. The history's size: HISTORY_BENCH_EVENTS (history.bench.ts). */
const HISTORY = process.env.BENCH_HISTORY !== 'off';
/** A schema the history bench's load already filled: used as it is (migrated), and kept. */
const KEPT_SCHEMA = process.env.BENCH_HISTORY_SCHEMA;
/** Each page and API call, p95 of the time to its whole answer. */
const TARGET_MS = 100;
const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The bench's own Redis and PostgreSQL (the history's; none with BENCH_HISTORY=off). */
interface Servers {
  readonly redisUrl: string;
  readonly databaseUrl: string | undefined;
}

interface Call {
  readonly path: string;
  /** A POST's JSON body (the replay's dry run). */
  readonly body?: unknown;
}

/** Every GET of the console: pages, then their /api/v1 equivalents. */
function liveCalls(ids: { rejected: string; failed: string }): Call[] {
  return [
    '/',
    '/routes',
    '/rejected',
    `/rejected/${ids.rejected}`,
    '/failed',
    `/failed/${ids.failed}`,
    '/sign-in',
    '/api/v1/overview',
    '/api/v1/routes',
    '/api/v1/rejected',
    `/api/v1/rejected/${ids.rejected}`,
    '/api/v1/failed',
    `/api/v1/failed/${ids.failed}`,
    '/api/v1/openapi.json',
  ].map((path) => ({ path }));
}

/** The history's pages and calls over the loaded events (01BENCH, ev5, route indexer). */
function historyCalls(next: string, replayId: string): Call[] {
  const filtered = [
    'barcode=39123',
    'institution=01BENCH&action=bib',
    'route=indexer&outcome=failed',
    `after=${next}`,
  ];
  return [
    '/events',
    ...filtered.map((query) => `/events?${query}`),
    '/events/01BENCH/ev5',
    '/replays',
    `/replays/${replayId}`,
    `/replays/${replayId}/progress`,
    '/replays?route=loans&barcode=39123',
    '/replays?route=loans&institution=01BENCH',
    '/replays?route=loans',
    '/forget',
    '/audit',
    '/api/v1/events',
    ...filtered.map((query) => `/api/v1/events?${query}`),
    '/api/v1/events/01BENCH/ev5',
    `/api/v1/replays/${replayId}`,
    '/api/v1/audit',
  ]
    .map((path): Call => ({ path }))
    .concat(
      [{ barcode: '39123' }, { institution: '01BENCH' }, {}].map((filters) => ({
        path: '/api/v1/replays',
        body: { route: 'loans', filters, dryRun: true },
      })),
    );
}

/**
 * `npm run bench -- console`: every page and API call of the console over queues holding EVENTS
 * event jobs (a tenth failed), as many deliveries on one route (a tenth failed) and 500 rejected
 * deliveries; REQUESTS sequential requests each (in rounds over every call), p50/p95 of the time
 * to the whole answer on the loopback (an upper bound of the server time), each p95 against its
 * target. With the history (unless BENCH_HISTORY=off) its pages and calls too, over the history
 * bench's SQL load (HISTORY_BENCH_EVENTS) in a schema of its own, or BENCH_HISTORY_SCHEMA
 * already loaded. On a Redis and a PostgreSQL of the bench's own (BENCH_REDIS_URL and
 * BENCH_DATABASE_URL name given ones instead; BENCH_HISTORY_SCHEMA needs the latter).
 */
export async function run(): Promise<void> {
  const redis = await benchRedis(NOT_PINNED);
  const postgres = HISTORY ? await benchPostgres() : undefined;
  try {
    await runOn({ redisUrl: redis.url, databaseUrl: postgres?.url });
  } finally {
    await postgres?.stop();
    await redis.stop();
  }
}

async function runOn(servers: Servers): Promise<void> {
  const queueName = `bench-console-${randomUUID().slice(0, 8)}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-console-'));
  const connection = openProducerConnection(servers.redisUrl, { commandTimeoutMs: 10_000 });
  await connection.ping().catch(() => undefined);
  const schema = KEPT_SCHEMA ?? `bench_console_${randomUUID().slice(0, 8)}`;
  try {
    await seed(queueName, connection, servers.redisUrl);
    if (servers.databaseUrl !== undefined) {
      const db = await openHistoryDatabase({ url: servers.databaseUrl, schema });
      if (db !== undefined) {
        if (KEPT_SCHEMA === undefined) await loadHistory(db);
        await db.close();
      }
    }
    const env = await consoleEnv(dir, { queueName, schema, ...servers });
    const consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: createLogger({ level: 'silent', name: 'bench' }),
      connection,
      env,
    });
    const server = createServer(consoleProcess.app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    await measureAll(base);
    server.close();
    await consoleProcess.close();
  } finally {
    await cleanUp(queueName, connection, dir, {
      ...servers,
      dropSchema: KEPT_SCHEMA === undefined ? schema : undefined,
    });
  }
}

async function consoleEnv(
  dir: string,
  { queueName, schema, redisUrl, databaseUrl }: Servers & { queueName: string; schema: string },
): Promise<Record<string, string>> {
  await writeFile(
    path.join(dir, 'routes.yaml'),
    'routes:\n  - name: loans\n    to: { http: { url: "http://127.0.0.1:9/hook" } }\n',
  );
  await writeFile(
    path.join(dir, 'tokens.yaml'),
    `tokens:\n  - { name: bench, sha256: ${sha256Hex(TOKEN)}, role: operator }\n`,
  );
  return {
    REDIS_URL: redisUrl,
    QUEUE_NAME: queueName,
    ROUTES_FILE: path.join(dir, 'routes.yaml'),
    CONSOLE_TOKENS_FILE: path.join(dir, 'tokens.yaml'),
    LOG_LEVEL: 'silent',
    ...(databaseUrl !== undefined
      ? {
          DATABASE_URL: databaseUrl,
          HISTORY_KEY: 'bench-console-history-key-0123456789abcdef',
          HISTORY_SCHEMA: schema,
        }
      : {}),
  };
}

async function measureAll(base: string): Promise<void> {
  const first = async <T>(call: string): Promise<T> => {
    const response = await fetch(`${base}${call}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return (await response.json()) as T;
  };
  type Items<T> = { items: T[]; next?: string };
  const rejected = (await first<Items<{ ref: string }>>('/api/v1/rejected')).items[0]?.ref ?? '';
  const failed = (await first<Items<{ jobId: string }>>('/api/v1/failed')).items[0]?.jobId ?? '';
  const calls = liveCalls({ rejected, failed });
  if (HISTORY) {
    const next = (await first<Items<unknown>>('/api/v1/events')).next ?? '';
    calls.push(...historyCalls(next, await oneReplay(base)));
  }
  print(
    `${String(EVENTS)} event jobs, ${String(EVENTS)} deliveries, 500 rejected; ${String(REQUESTS)} requests per call; load average ${loadAverage()}`,
  );
  print(`${'call'.padEnd(58)} p50 ms   p95 ms   target`);
  let missed = 0;
  const timesOf = await measureInRounds(base, calls);
  calls.forEach((call, i) => {
    const times = timesOf[i] ?? [];
    const p95 = quantile(times, 0.95);
    if (p95 >= TARGET_MS) missed += 1;
    const name = `${call.body === undefined ? 'GET' : 'POST'} ${shorter(call.path)}${call.body === undefined ? '' : ` ${JSON.stringify((call.body as { filters: unknown }).filters)}`}`;
    print(
      `${name.padEnd(58)} ${fmt(quantile(times, 0.5))}  ${fmt(p95)}   < ${String(TARGET_MS)} ms ${p95 < TARGET_MS ? 'ok' : 'MISSED'}`,
    );
  });
  print(
    `${String(calls.length - missed)} of ${String(calls.length)} calls within target; load average ${loadAverage()}`,
  );
}

/** A replay of one event (its progress page and call are measured): its id. */
async function oneReplay(base: string): Promise<string> {
  const response = await fetch(`${base}/api/v1/replays`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      route: 'loans',
      filters: { id: 'ev5', institution: '01BENCH' },
      dryRun: false,
    }),
  });
  return ((await response.json()) as { replayId: string }).replayId;
}

/** A cursor or a job id makes a path long; the table keeps its start. */
function shorter(call: string): string {
  return call.length > 52 ? `${call.slice(0, 49)}…` : call;
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

async function cleanUp(
  queueName: string,
  connection: ReturnType<typeof openProducerConnection>,
  dir: string,
  { redisUrl, databaseUrl, dropSchema }: Servers & { dropSchema: string | undefined },
): Promise<void> {
  for (const name of [queueName, routeQueueName(queueName, 'loans')]) {
    const queue = new Queue(name, { connection: { url: redisUrl } });
    await queue.obliterate({ force: true });
    await queue.close();
  }
  const keys = await connection.keys(`${queueName}:rejected:*`);
  if (keys.length > 0) await connection.del(...keys);
  await closeRedis(connection);
  await rm(dir, { recursive: true, force: true });
  if (databaseUrl !== undefined && dropSchema !== undefined) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${dropSchema} CASCADE`);
    await client.end();
  }
}

async function seed(
  queueName: string,
  connection: ReturnType<typeof openProducerConnection>,
  redisUrl: string,
) {
  for (const name of [queueName, routeQueueName(queueName, 'loans')]) {
    const queue = new Queue(name, { connection: { url: redisUrl } });
    const jobs = Array.from({ length: EVENTS }, (_, i) => ({
      name: 'loan',
      data: {
        id: `e${String(i)}`,
        action: 'loan',
        time: new Date().toISOString(),
        institution: { value: 'INST_A' },
      },
      opts: { jobId: `evt-e${String(i)}`, attempts: 1, removeOnFail: false },
    }));
    for (let at = 0; at < jobs.length; at += 1000) await queue.addBulk(jobs.slice(at, at + 1000));
    const worker = new Worker(
      name,
      (job) => {
        if (Number(job.data.id.slice(1)) % 10 === 0)
          return Promise.reject(new Error('HTTP 500 from the destination'));
        return Promise.resolve();
      },
      { connection: { url: redisUrl, maxRetriesPerRequest: null }, concurrency: 50 },
    );
    while ((await queue.getWaitingCount()) + (await queue.getActiveCount()) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await worker.close();
    await queue.close();
  }
  const store = createRejectedStore({
    redis: connection,
    queueName,
    maxCount: 1000,
    maxAgeHours: 1,
  });
  for (let i = 0; i < 500; i += 1) {
    await store.keep({
      body: Buffer.from(`{"n":${String(i)}}`),
      contentType: 'application/json',
      reason: 'id is missing',
      status: 400,
      receivedAt: new Date(),
      requestId: randomUUID(),
    });
  }
}

/**
 * REQUESTS rounds, each calling every call once (after one round not counted, while caches and
 * the JIT warm up): a burst of load on this shared machine falls on every call alike, instead
 * of on whichever was being measured then.
 */
async function measureInRounds(base: string, calls: readonly Call[]): Promise<number[][]> {
  const times = calls.map((): number[] => []);
  for (let round = -1; round < REQUESTS; round += 1) {
    for (const [i, call] of calls.entries()) {
      const took = await timeOne(base, call);
      if (round >= 0) times[i]?.push(took);
    }
  }
  return times;
}

async function timeOne(base: string, call: Call): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${base}${call.path}`, {
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(call.body === undefined ? {} : { method: 'POST', body: JSON.stringify(call.body) }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${call.path}: ${String(response.status)}`);
  return performance.now() - started;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)] ?? 0;
}

const fmt = (ms: number): string => ms.toFixed(1).padStart(7);
