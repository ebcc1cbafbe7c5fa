import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { ConsoleConfig, loadConfig } from '../src/config';
import { sha256Hex } from '../src/console/console-access-files';
import { createRejectedStore } from '../src/events/rejected-store';
import { openHistoryDatabase } from '../src/history/open-history-database';
import { createLogger } from '../src/logger';
import { createConsoleProcess } from '../src/processes/console-process';
import { closeRedis } from '../src/redis/close-redis';
import { openProducerConnection } from '../src/redis/open-producer-connection';
import { routeQueueName } from '../src/routes/route-queue-name';
import { load as loadHistory } from './history.bench';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const TOKEN = 'bench-console-operator-token';
/** BENCH_HISTORY=off: the live calls only. The history's size: HISTORY_BENCH_EVENTS (history.bench.ts). */
const HISTORY = process.env.BENCH_HISTORY !== 'off';
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HISTORY_CALLS = [
  '/events',
  '/events?barcode=39123',
  '/events/01BENCH/ev5',
  '/replays?route=loans&barcode=39123',
  '/audit',
  '/api/v1/events?barcode=39123',
  '/api/v1/events?institution=01BENCH&action=bib',
  '/api/v1/events/01BENCH/ev5',
  '/api/v1/audit',
];
const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/**
 * `npm run bench -- console`: the live pages and API calls of the console over queues holding
 * EVENTS event jobs (a tenth failed), as many deliveries on one route (a tenth failed) and 500
 * rejected deliveries; REQUESTS sequential requests each, p50/p95 of the time to the whole answer
 * on the loopback (an upper bound of the server time). With the history (unless BENCH_HISTORY=off)
 * its pages and calls too, over the history bench's SQL load in a schema of its own.
 */
export async function run(): Promise<void> {
  const queueName = `bench-console-${randomUUID().slice(0, 8)}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-console-'));
  const connection = openProducerConnection(REDIS_URL, { commandTimeoutMs: 10_000 });
  await connection.ping().catch(() => undefined);
  const schema = `bench_console_${randomUUID().slice(0, 8)}`;
  try {
    await seed(queueName, connection);
    if (HISTORY) {
      const db = await openHistoryDatabase({ url: DATABASE_URL, schema });
      if (db !== undefined) {
        await loadHistory(db);
        await db.close();
      }
    }
    await writeFile(
      path.join(dir, 'routes.yaml'),
      'routes:\n  - name: loans\n    to: { http: { url: "http://127.0.0.1:9/hook" } }\n',
    );
    await writeFile(
      path.join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: bench, sha256: ${sha256Hex(TOKEN)}, role: operator }\n`,
    );
    const env = {
      REDIS_URL,
      QUEUE_NAME: queueName,
      ROUTES_FILE: path.join(dir, 'routes.yaml'),
      CONSOLE_TOKENS_FILE: path.join(dir, 'tokens.yaml'),
      LOG_LEVEL: 'silent',
      ...(HISTORY
        ? {
            DATABASE_URL,
            HISTORY_KEY: 'bench-console-history-key-0123456789abcdef',
            HISTORY_SCHEMA: schema,
          }
        : {}),
    };
    const consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: createLogger({ level: 'silent', name: 'bench' }),
      connection,
      env,
    });
    const server = createServer(consoleProcess.app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    print(
      `${String(EVENTS)} event jobs, ${String(EVENTS)} deliveries, 500 rejected; ${String(REQUESTS)} requests per call`,
    );
    print(`${'call'.padEnd(50)} p50 ms   p95 ms`);
    for (const call of [
      '/',
      '/routes',
      '/rejected',
      '/failed',
      '/api/v1/overview',
      '/api/v1/routes',
      '/api/v1/rejected',
      '/api/v1/failed',
      ...(HISTORY ? HISTORY_CALLS : []),
    ]) {
      const times = await measure(`${base}${call}`);
      print(`GET ${call.padEnd(46)} ${fmt(quantile(times, 0.5))}  ${fmt(quantile(times, 0.95))}`);
    }
    server.close();
    await consoleProcess.close();
  } finally {
    for (const name of [queueName, routeQueueName(queueName, 'loans')]) {
      const queue = new Queue(name, { connection: { url: REDIS_URL } });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    const keys = await connection.keys(`${queueName}:rejected:*`);
    if (keys.length > 0) await connection.del(...keys);
    await closeRedis(connection);
    await rm(dir, { recursive: true, force: true });
    if (HISTORY) {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  }
}

async function seed(queueName: string, connection: ReturnType<typeof openProducerConnection>) {
  for (const name of [queueName, routeQueueName(queueName, 'loans')]) {
    const queue = new Queue(name, { connection: { url: REDIS_URL } });
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
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: 50 },
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

async function measure(url: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    await response.arrayBuffer();
    if (response.status !== 200 && response.status !== 303)
      throw new Error(`${url}: ${String(response.status)}`);
    times.push(performance.now() - started);
  }
  return times;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)] ?? 0;
}

const fmt = (ms: number): string => ms.toFixed(1).padStart(7);
