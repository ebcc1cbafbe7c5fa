import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { historyStreamKey } from '../src/history';
import { Connection } from 'rabbitmq-client';
import type { Consumer } from 'rabbitmq-client';
import { signWebhookBody } from '../src/signature/sign-webhook-body';
import { routeQueueName } from '../src/routes/route-queue-name';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Events per second to post at (paced); unset: full speed, as fast as the listener answers. */
const RATE = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
/** A directory: the worker runs with --cpu-prof and writes its profile there. */
const CPU_PROF = process.env.BENCH_CPU_PROF;
const SECRET = 'bench-secret-of-the-routing';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const ROOT = path.join(__dirname, '..');
const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/**
 * `npm run bench -- routing`: EVENTS signed LOAN events posted to the real listener, at full speed
 * or at BENCH_RATE per second; the worker (its own process) fans each out to two routes — RabbitMQ
 * with publisher confirms, and the file archive (fsync). Measures end to end: posted → seen on
 * both destinations (a RabbitMQ consumer, and the archive file read as it grows), and the CPU each
 * process on the path spent per event (listener, worker, Redis, RabbitMQ, this load generator).
 */
export async function run(): Promise<void> {
  // The same run measures all: shaping's and history's costs are read beside the plain figure.
  print('--- unshaped: the canonical event on both routes');
  const plain = await runCase(false, false);
  print(
    '--- shaped: RabbitMQ route with a where filter, send: { mask: patron } and a small JSONata transform',
  );
  await runCase(true, false);
  print(
    `--- history on: unshaped, every event and attempt recorded (PostgreSQL ${HISTORY_DB_URL})`,
  );
  const recorded = await runCase(false, true);
  const ratio = recorded / plain;
  print(
    `history on / off, end to end: ${(ratio * 100).toFixed(0)} % (target ≥ 90 %) ${ratio >= 0.9 ? 'met' : 'MISSED'}`,
  );
}

/** The PostgreSQL of the history case (docs/history.md); a schema of its own, dropped after. */
const HISTORY_DB_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** End to end events/s of one case. */
async function runCase(shaped: boolean, history: boolean): Promise<number> {
  const schema = `bench_history_${randomUUID().slice(0, 8)}`;
  const names = { queue: `bench-routing-${randomUUID().slice(0, 8)}` };
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-routing-'));
  const exchange = `bench-routing-${randomUUID().slice(0, 8)}`;
  const seen = createTracker();
  const rabbit = new Connection(AMQP_URL);
  await rabbit.exchangeDeclare({ exchange, type: 'topic', durable: true });
  const consumer = await consumeExchange(rabbit, exchange, (id) => seen.arrived(id, 'amqp'));
  const tail = tailArchive(path.join(dir, 'archive'), (id) => seen.arrived(id, 'file'));
  const listener = await startChild(
    ['bench/servers/listener-server.ts', 'listener', names.queue],
    /port=(\d+)/,
  );
  const worker = await startChild(
    [
      ...(CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`]),
      'bench/servers/routing-worker.ts',
    ],
    /ready/,
    {
      ...workerEnv(names.queue, await writeRoutesFile(dir, exchange, shaped)),
      ...(history
        ? {
            DATABASE_URL: HISTORY_DB_URL,
            HISTORY_KEY: 'bench-history-key-of-at-least-32-characters',
            HISTORY_SCHEMA: schema,
          }
        : {}),
    },
  ).catch(async (error: unknown) => {
    await stopChild(listener.child);
    throw error;
  });
  try {
    const processes = cpuProbe({ listener: listener.child.pid, worker: worker.child.pid });
    const started = performance.now();
    await postAll(`http://127.0.0.1:${listener.match}/webhooks`, seen.posted);
    const postedIn = performance.now() - started;
    const finished = await seen.all(120_000);
    const elapsed = performance.now() - started;
    return report({ seen, finished, postedIn, elapsed, cpu: processes.since() });
  } finally {
    tail.stop();
    await consumer.close();
    await rabbit.exchangeDelete({ exchange }).catch(() => undefined);
    await rabbit.close();
    await stopChild(worker.child);
    await stopChild(listener.child);
    await obliterateRoutes(names.queue);
    if (history) await dropHistory(names.queue, schema);
    await rm(dir, { recursive: true, force: true });
  }
}

/** A `where` every bench event passes, the patron mask and a small transform (docs/routing.md). */
const SHAPING =
  `match: { action: [loan], where: { item_loan.loan_status: [ACTIVE] } }, ` +
  `send: { mask: patron, transform: '{ "id": id, "loan": item_loan.loan_id, "title": item_loan.title }' }`;

/** One route to RabbitMQ (LOAN events; shaped or not), one archiving every event. */
async function writeRoutesFile(dir: string, exchange: string, shaped: boolean): Promise<string> {
  const routesFile = path.join(dir, 'routes.yaml');
  const match = shaped ? SHAPING : 'match: { action: [loan] }';
  await writeFile(
    routesFile,
    [
      'routes:',
      `  - { name: loans, ${match}, to: { amqp: { url: "${AMQP_URL}", exchange: ${exchange}, routingKey: "{action}.{event}" } }, concurrency: 64 }`,
      `  - { name: archive, to: { file: { dir: "${path.join(dir, 'archive')}" } }, concurrency: 64 }`,
      '',
    ].join('\n'),
  );
  return routesFile;
}

function workerEnv(queueName: string, routesFile: string): Record<string, string> {
  return {
    REDIS_URL,
    QUEUE_NAME: queueName,
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_API_KEY: 'unused',
    WORKER_CONCURRENCY: '64',
    WORKER_METRICS_PORT: '0',
    ROUTES_FILE: routesFile,
    LOG_LEVEL: 'info',
  };
}

interface Tracker {
  /** Event id → when its POST was sent. */
  readonly posted: Map<string, number>;
  /** Posted → seen on both destinations, ms, in arrival order. */
  readonly latencies: number[];
  readonly counts: { amqp: number; file: number };
  arrived(id: string, where: 'amqp' | 'file'): void;
  /** Resolves true once every event was seen on both, false after `timeoutMs`. */
  all(timeoutMs: number): Promise<boolean>;
}

function createTracker(): Tracker {
  const posted = new Map<string, number>();
  const seen = new Map<string, { amqp?: number; file?: number }>();
  const latencies: number[] = [];
  const counts = { amqp: 0, file: 0 };
  let done: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => {
    done = resolve;
  });
  return {
    posted,
    latencies,
    counts,
    arrived: (id, where) => {
      const entry = seen.get(id) ?? {};
      if (entry[where] !== undefined) return;
      entry[where] = performance.now();
      counts[where] += 1;
      seen.set(id, entry);
      const sent = posted.get(id);
      if (entry.amqp !== undefined && entry.file !== undefined && sent !== undefined) {
        latencies.push(Math.max(entry.amqp, entry.file) - sent);
        if (latencies.length === EVENTS) done();
      }
    },
    all: (timeoutMs) =>
      Promise.race([
        allDone.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs)),
      ]),
  };
}

function report(run: {
  seen: Tracker;
  finished: boolean;
  postedIn: number;
  elapsed: number;
  cpu: ReadonlyMap<string, number>;
}): number {
  const { latencies, counts } = run.seen;
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const pacing = RATE === undefined ? 'at full speed' : `paced at ${String(RATE)}/s`;
  print(
    `events: ${String(EVENTS)} LOAN events posted ${pacing}, ${String(CONNECTIONS)} connections; routes: RabbitMQ (confirms) + file archive (fsync)`,
  );
  if (!run.finished) {
    print(`seen: ${String(counts.amqp)} on RabbitMQ, ${String(counts.file)} in the archive`);
    print(`INCOMPLETE: ${String(latencies.length)} of ${String(EVENTS)} on both within 120 s`);
  }
  print(
    `posted in ${(run.postedIn / 1000).toFixed(2)} s (${(EVENTS / (run.postedIn / 1000)).toFixed(0)} posts/s)`,
  );
  const perSecond = latencies.length / (run.elapsed / 1000);
  print(
    `end to end: ${perSecond.toFixed(0)} events/s (posted → both destinations confirmed, ${(run.elapsed / 1000).toFixed(2)} s; the last ${((run.elapsed - run.postedIn) / 1000).toFixed(2)} s after the last post)`,
  );
  print(
    `latency: p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, max ${at(1).toFixed(0)} ms`,
  );
  const events = Math.max(1, latencies.length);
  const workerUs = run.cpu.get('worker') ?? NaN;
  print(
    `worker CPU: ${(workerUs / (events * 2)).toFixed(0)} µs per delivery (${(workerUs / events).toFixed(0)} µs per event, fan-out included)`,
  );
  let total = 0;
  const parts = [...run.cpu].map(([name, us]) => {
    total += us;
    return `${name} ${(us / events).toFixed(0)}`;
  });
  print(
    `CPU per event, µs: ${parts.join(', ')}; all ${(total / events).toFixed(0)} (${(total / 1000 / run.elapsed).toFixed(2)} cores busy over the run)`,
  );
  return perSecond;
}

/** An exclusive queue bound to every key of the exchange; resolves once it is consuming. */
async function consumeExchange(
  rabbit: Connection,
  exchange: string,
  onId: (id: string) => void,
): Promise<Consumer> {
  const consumer = rabbit.createConsumer(
    {
      queue: `${exchange}-seen`,
      queueOptions: { exclusive: true },
      queueBindings: [{ exchange, routingKey: '#' }],
      qos: { prefetchCount: 500 },
    },
    (message) => {
      onId(String(message.messageId));
    },
  );
  // The queue exists only once the consumer is set up: publishes before it would go nowhere.
  await new Promise<void>((resolve) => consumer.once('ready', () => resolve()));
  return consumer;
}

/** The body of one signed LOAN event. */
function loanBody(id: string): string {
  return JSON.stringify({
    id,
    action: 'LOAN',
    institution: { value: '01BENCH_INST', desc: 'Bench' },
    time: new Date().toISOString(),
    event: { value: 'LOAN_CREATED', desc: 'Loan created' },
    item_loan: {
      loan_id: `2340${id}`,
      user_id: 'bench-user',
      title: 'A history of rivers',
      loan_status: 'ACTIVE',
    },
  });
}

/**
 * POSTs every event, CONNECTIONS at a time, on keep-alive connections; with RATE, event n is not
 * sent before n / RATE s from the start (a sustained rate), otherwise each as soon as a
 * connection is free.
 */
async function postAll(url: string, posted: Map<string, number>): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let next = 0;
  const base = Date.now();
  const start = performance.now();
  const one = (id: string): Promise<void> => {
    const body = loanBody(id);
    return new Promise((resolve, reject) => {
      posted.set(id, performance.now());
      const req = http.request(url, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'x-svc-signature': signWebhookBody(SECRET, body),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${String(res.statusCode)}`)),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  };
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < EVENTS) {
        next += 1;
        const n = next;
        if (RATE !== undefined) {
          const wait = start + (n * 1000) / RATE - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
        // Digits, as the platform's ids; concatenated (their sum would pass 2^53).
        await one(`${String(base)}${String(n).padStart(6, '0')}`);
      }
    }),
  );
  agent.destroy();
}

/** Reads the archive's day files as they grow and reports each event id once it is on disk. */
function tailArchive(dir: string, onId: (id: string) => void): { stop: () => void } {
  const offsets = new Map<string, number>();
  const rests = new Map<string, string>();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      const day = `${new Date().toISOString().slice(0, 10)}.jsonl`;
      const file = path.join(dir, day);
      const handle = await open(file, 'r').catch(() => undefined);
      if (handle === undefined) return;
      try {
        const from = offsets.get(file) ?? 0;
        const { size } = await handle.stat();
        if (size <= from) return;
        const buffer = Buffer.alloc(size - from);
        await handle.read(buffer, 0, buffer.length, from);
        offsets.set(file, size);
        const lines = ((rests.get(file) ?? '') + buffer.toString('utf8')).split('\n');
        rests.set(file, lines.pop() ?? '');
        for (const line of lines) if (line !== '') onId((JSON.parse(line) as { id: string }).id);
      } finally {
        await handle.close();
      }
    })().finally(() => {
      busy = false;
    });
  }, 10);
  return { stop: () => clearInterval(timer) };
}

/**
 * CPU time of the processes on the path, read from /proc (user + system): the listener and the
 * worker, the Redis of REDIS_URL's port, RabbitMQ's Erlang VM, and this process. `since()` gives
 * each one's µs since the probe was made. Linux only; a process not found is left out.
 */
function cpuProbe(children: { listener: number | undefined; worker: number | undefined }): {
  since(): ReadonlyMap<string, number>;
} {
  const port = new URL(REDIS_URL).port || '6379';
  const pids = new Map<string, number>();
  if (children.listener !== undefined) pids.set('listener', children.listener);
  if (children.worker !== undefined) pids.set('worker', children.worker);
  const redis = findPid((cmd) => cmd.startsWith('redis-server') && cmd.includes(`:${port}`));
  if (redis !== undefined) pids.set('redis', redis);
  const rabbit = findPid((cmd) => cmd.includes('beam.smp') && cmd.includes('rabbit'));
  if (rabbit !== undefined) pids.set('rabbitmq', rabbit);
  const ticks = 10_000; // µs per clock tick at the usual USER_HZ of 100
  const read = (): Map<string, number> => {
    const now = new Map<string, number>();
    for (const [name, pid] of pids) now.set(name, cpuTicksOf(pid) * ticks);
    const own = process.cpuUsage();
    now.set('load generator', own.user + own.system);
    return now;
  };
  const before = read();
  return {
    since: () => {
      const after = read();
      return new Map([...after].map(([name, us]) => [name, us - (before.get(name) ?? 0)]));
    },
  };
}

function findPid(matches: (cmdline: string) => boolean): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (matches(cmdline)) return Number(entry);
    } catch {
      // The process ended while the list was read.
    }
  }
  return undefined;
}

/** utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
function cpuTicksOf(pid: number): number {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function obliterateRoutes(queueName: string): Promise<void> {
  for (const name of [routeQueueName(queueName, 'loans'), routeQueueName(queueName, 'archive')]) {
    const queue = new Queue(name, { connection: { url: REDIS_URL } });
    await queue.obliterate({ force: true });
    await queue.close();
  }
}

/** The history case's outbox stream and schema. */
async function dropHistory(queueName: string, schema: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  await redis.del(historyStreamKey(queueName));
  redis.disconnect();
  const client = new pg.Client({ connectionString: HISTORY_DB_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

async function startChild(
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, BENCH_SECRET: SECRET, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const match = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const found = ready.exec(text);
      if (found) resolve(found[1] ?? found[0]);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${String(code)}`)));
  });
  return { child, match };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
