import { loadavg } from 'node:os';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { CanonicalEvent } from '../src/events/canonical-event';
import { createEventEnqueuer } from '../src/events/enqueue-event';
import { normalizeEvent } from '../src/events/normalize-event';
import { parseJsonEvent } from '../src/events/parse-json-event';
import { createWebMetrics } from '../src/metrics/web-metrics';
import { openProducerConnection } from '../src/redis/open-producer-connection';
import { signedBodies } from './ingress/signed-bodies';
import { median } from './ingress/median';
import { NOT_PINNED } from './ingress/cores';
import { benchRedis } from './ingress/private-redis';

const ADDS = Number(process.env.BENCH_ADDS ?? 10000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** Adds started together, as deliveries that arrive in one event-loop turn. */
const CONCURRENT = 50;

interface Variant {
  name: string;
  enqueue: (event: CanonicalEvent) => Promise<unknown>;
}

/**
 * The enqueue of a delivery, piece by piece, in this process (no HTTP): listener CPU per add for a
 * typical listener's add, our add with its job options, with the duplicate read-back, with the
 * metrics timer, and on a connection that auto-pipelines. Medians of
 * BENCH_ROUNDS rounds of BENCH_ADDS adds, 50 at a time, after a warm-up, on a private
 * redis-server (BENCH_REDIS_URL: that Redis instead). The stage figures (docs/benchmarks.md) for
 * the part the three-server bench can only show as a whole.
 */
export async function run(): Promise<void> {
  const redis = await benchRedis(NOT_PINNED);
  try {
    await measureEnqueue(redis);
  } finally {
    await redis.stop();
  }
}

async function measureEnqueue(redis: { url: string; private: boolean }): Promise<void> {
  const redisUrl = redis.url;
  const plain = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const producer = openProducerConnection(redisUrl);
  const pipelining = openConnection(redisUrl, { enableAutoPipelining: true });
  const suffix = `${process.pid}-${Date.now()}`;
  const queues = [plain, producer, pipelining].map(
    (connection, i) => new Queue(`bench-enqueue-${suffix}-${i}`, { connection }),
  );
  const [typicalQueue, ourQueue, pipelinedQueue] = queues as [Queue, Queue, Queue];
  await Promise.all(queues.map((queue) => queue.waitUntilReady()));
  const ours = createEventEnqueuer({ queue: ourQueue, dedupWindowHours: 48, attempts: 8 });
  const timed = createWebMetrics({ queue: ourQueue, defaultMetrics: false }).timeEnqueue(ours);
  const variants: Variant[] = [
    { name: 'typical: add {jobId}, plain connection', enqueue: addWithId(typicalQueue) },
    { name: 'add {jobId}, our producer connection', enqueue: addWithId(ourQueue) },
    { name: 'ours: add with job options + read-back', enqueue: ours },
    { name: 'ours + the metrics timer (as the listener process wraps it)', enqueue: timed },
    {
      name: 'ours on an auto-pipelining connection',
      enqueue: createEventEnqueuer({ queue: pipelinedQueue, dedupWindowHours: 48, attempts: 8 }),
    },
  ];
  write(
    `Redis: ${redis.private ? 'private' : redisUrl}; ${ADDS} adds a round, ${CONCURRENT} at a time; load average ${load()}\n`,
  );
  try {
    for (const variant of variants) {
      await measure(variant, 2000);
      const runs: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) runs.push(await measure(variant, ADDS));
      write(
        `  ${variant.name.padEnd(50)} ${median(runs).toFixed(1).padStart(6)} µs CPU per add  (${runs.map((r) => r.toFixed(0)).join(' / ')})\n`,
      );
    }
  } finally {
    for (const queue of queues) {
      await queue.obliterate({ force: true });
      await queue.close();
    }
    for (const connection of [plain, producer, pipelining]) connection.disconnect();
  }
  write(`load average at the end ${load()}\n`);
}

function openConnection(redisUrl: string, options: RedisOptions): Redis {
  return new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    ...options,
  });
}

function addWithId(queue: Queue): (event: CanonicalEvent) => Promise<unknown> {
  return (event) => queue.add(event.action, event, { jobId: `evt-${event.id}` });
}

/** CPU µs per add over `count` fresh events (normalized before the clock runs). */
async function measure(variant: Variant, count: number): Promise<number> {
  const events = signedBodies('json', count, 'bench-secret-of-the-ingress').map((body, i) =>
    normalizeEvent(parseJsonEvent(body.body.toString('utf8')), {
      format: 'json',
      receivedAt: new Date().toISOString(),
      requestId: `bench-${i}`,
    }),
  );
  const started = process.cpuUsage();
  for (let i = 0; i < events.length; i += CONCURRENT) {
    await Promise.all(events.slice(i, i + CONCURRENT).map(variant.enqueue));
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

function load(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

function write(text: string): void {
  process.stdout.write(text);
}
