import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Connection } from 'rabbitmq-client';
import { signWebhookBody } from '../src/http/webhook-signature';
import { routeQueueName } from '../src/routes/route-queue-name';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECRET = 'bench-secret-of-the-routing';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const ROOT = path.join(__dirname, '..');

/**
 * `npm run bench -- routing`: EVENTS signed LOAN events posted at full speed to the
 * real listener; the worker (its own process) fans each out to two routes — RabbitMQ with
 * publisher confirms, and the file archive (fsync). Measures end to end: posted → seen on both
 * destinations (a RabbitMQ consumer, and the archive file read as it grows).
 */
export async function run(): Promise<void> {
  const queueName = `bench-routing-${randomUUID().slice(0, 8)}`;
  const exchange = `bench-routing-${randomUUID().slice(0, 8)}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-routing-'));
  const routesFile = path.join(dir, 'routes.yaml');
  await writeFile(
    routesFile,
    [
      'routes:',
      `  - { name: loans, match: { action: [loan] }, to: { amqp: { url: "${AMQP_URL}", exchange: ${exchange}, routingKey: "{action}.{event}" } }, concurrency: 64 }`,
      `  - { name: archive, to: { file: { dir: "${path.join(dir, 'archive')}" } }, concurrency: 64 }`,
      '',
    ].join('\n'),
  );
  const rabbit = new Connection(AMQP_URL);
  await rabbit.exchangeDeclare({ exchange, type: 'topic', durable: true });
  const amqpQueue = `${exchange}-seen`;

  const posted = new Map<string, number>();
  const seen = new Map<string, { amqp?: number; file?: number }>();
  const latencies: number[] = [];
  let done: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => {
    done = resolve;
  });
  const arrived = (id: string, where: 'amqp' | 'file'): void => {
    const entry = seen.get(id) ?? {};
    if (entry[where] !== undefined) return;
    entry[where] = performance.now();
    seen.set(id, entry);
    const sent = posted.get(id);
    if (entry.amqp !== undefined && entry.file !== undefined && sent !== undefined) {
      latencies.push(Math.max(entry.amqp, entry.file) - sent);
      if (latencies.length === EVENTS) done();
    }
  };
  const consumer = rabbit.createConsumer(
    {
      queue: amqpQueue,
      queueOptions: { exclusive: true },
      queueBindings: [{ exchange, routingKey: '#' }],
      qos: { prefetchCount: 500 },
    },
    (message) => {
      arrived(String(message.messageId), 'amqp');
    },
  );
  // The queue exists only once the consumer is set up: publishes before it would go nowhere.
  await new Promise<void>((resolve) => consumer.once('ready', () => resolve()));
  const tail = tailArchive(path.join(dir, 'archive'), (id) => arrived(id, 'file'));

  const listener = await startChild(
    ['bench/servers/listener-server.ts', 'listener', queueName],
    /port=(\d+)/,
  );
  const worker = await startChild(['bench/servers/routing-worker.ts'], /ready/, {
    REDIS_URL,
    QUEUE_NAME: queueName,
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_API_KEY: 'unused',
    WORKER_CONCURRENCY: '64',
    WORKER_METRICS_PORT: '0',
    ROUTES_FILE: routesFile,
    LOG_LEVEL: 'info',
  });
  try {
    const url = `http://127.0.0.1:${listener.match}/webhooks`;
    await cpuOf(worker.child);
    const started = performance.now();
    await postAll(url, posted);
    const postedIn = performance.now() - started;
    const finished = await Promise.race([
      allDone.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 120_000)),
    ]);
    const elapsed = performance.now() - started;
    const workerCpuUs = await cpuOf(worker.child);
    latencies.sort((a, b) => a - b);
    const at = (q: number): number =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    const print = (line: string): void => {
      process.stdout.write(`${line}\n`);
    };
    print(
      `events: ${String(EVENTS)} LOAN events, ${String(CONNECTIONS)} connections; routes: RabbitMQ (confirms) + file archive (fsync)`,
    );
    const counts = { amqp: 0, file: 0 };
    for (const entry of seen.values()) {
      if (entry.amqp !== undefined) counts.amqp += 1;
      if (entry.file !== undefined) counts.file += 1;
    }
    if (!finished)
      print(`seen: ${String(counts.amqp)} on RabbitMQ, ${String(counts.file)} in the archive`);
    if (!finished)
      print(
        `INCOMPLETE: ${String(latencies.length)} of ${String(EVENTS)} seen on both destinations within 120 s`,
      );
    print(
      `posted in ${(postedIn / 1000).toFixed(2)} s (${(EVENTS / (postedIn / 1000)).toFixed(0)} posts/s)`,
    );
    print(
      `end to end: ${(latencies.length / (elapsed / 1000)).toFixed(0)} events/s (posted → both destinations confirmed, ${(elapsed / 1000).toFixed(2)} s)`,
    );
    print(
      `latency: p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, max ${at(1).toFixed(0)} ms`,
    );
    print(
      `worker CPU: ${(workerCpuUs / (latencies.length * 2)).toFixed(0)} µs per delivery (${(workerCpuUs / latencies.length).toFixed(0)} µs per event, fan-out included)`,
    );
  } finally {
    tail.stop();
    await consumer.close();
    await rabbit.exchangeDelete({ exchange }).catch(() => undefined);
    await rabbit.close();
    await stopChild(worker.child);
    await stopChild(listener.child);
    for (const name of [routeQueueName(queueName, 'loans'), routeQueueName(queueName, 'archive')]) {
      const queue = new Queue(name, { connection: { url: REDIS_URL } });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/** POSTs every event, CONNECTIONS at a time, on keep-alive connections. */
async function postAll(url: string, posted: Map<string, number>): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let next = 0;
  const base = Date.now();
  const one = (id: string): Promise<void> => {
    const body = JSON.stringify({
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
        // Digits, as the platform's ids; concatenated (their sum would pass 2^53).
        await one(`${String(base)}${String(next).padStart(6, '0')}`);
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
    child.once('exit', (code) => reject(new Error(`${args[0] ?? ''} exited ${String(code)}`)));
  });
  return { child, match };
}

/** Asks the worker for its CPU time since the last ask (µs). */
async function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onData = (chunk: Buffer): void => {
      const found = /cpu_us=(\d+)/.exec(chunk.toString('utf8'));
      if (found) {
        child.stdout?.off('data', onData);
        resolve(Number(found[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.kill('SIGUSR2');
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
