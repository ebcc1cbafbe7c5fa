import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { createApp } from '../../src/http/create-app';
import { createEventQueue } from '../../src/events/create-event-queue';
import { closeRedis } from '../../src/redis/close-redis';
import { openProducerConnection } from '../../src/redis/open-producer-connection';
import { createEventEnqueuer } from '../../src/events/enqueue-event';
import { createRejectedStore } from '../../src/events/rejected-store';
import type { RejectedStore } from '../../src/events/rejected-store';
import { createLogger } from '../../src/logger';
import { EnvSchema, loadConfig, queueOnItsSlot, redisKeys } from '../../src/config';
import { reportCpuPerRequest } from './report-cpu-per-request';

/** The Redis keys of the real listener, and its queue's name placed as on a cluster. */
const BenchRedisConfig = EnvSchema.pick({ ...redisKeys, QUEUE_NAME: true }).overwrite(
  queueOnItsSlot,
);

/**
 * A server for the ingress benchmark, in its own process so the load generator does not share its
 * core: `listener` is the real app over real Redis; `bare` is Express 5 reading the raw body and
 * answering 200 — the floor the listener is compared with. Prints `port=<n>` when listening.
 */
/** The no-Redis diagnostic keeps nothing: the bench sends only valid events. */
const NOWHERE: RejectedStore = {
  keep: async () => ({ ref: '-', evicted: 0 }),
  list: async () => [],
  get: async () => undefined,
  remove: async () => false,
};

async function main(): Promise<void> {
  const kind = process.argv[2];
  const queueName = process.argv[3] ?? 'bench-ingress';
  const secret = process.env.BENCH_SECRET ?? 'bench-secret-of-the-ingress';
  let app: express.Express;
  let close = async (): Promise<void> => undefined;
  if (kind === 'listener-no-redis') {
    // Diagnostic: the whole listener but for the enqueue, which resolves at once — shows how
    // much of the gap to the floor is BullMQ and Redis.
    const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    app = createApp({
      config: { WEBHOOK_PATH: '/webhooks', WEBHOOK_SECRET: secret, BODY_LIMIT: '1mb' },
      logger: createLogger({ level: 'info', name: 'bench', destination: sink }),
      enqueue: async (event) => ({ jobId: event.id, duplicate: false }),
      rejected: NOWHERE,
      checkReady: async () => undefined,
    });
  } else if (kind === 'listener') {
    // One Redis at REDIS_URL, or a cluster with REDIS_CLUSTER_NODES (its queue then `{name}`).
    const redis = loadConfig(BenchRedisConfig, { ...process.env, QUEUE_NAME: queueName });
    const events = createEventQueue({
      connection: openProducerConnection(redis),
      queueName: redis.QUEUE_NAME,
    });
    // The delivery line is written as in production, to a sink instead of a terminal.
    const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const logger = createLogger({ level: 'info', name: 'bench', destination: sink });
    app = createApp({
      config: { WEBHOOK_PATH: '/webhooks', WEBHOOK_SECRET: secret, BODY_LIMIT: '1mb' },
      logger,
      enqueue: createEventEnqueuer({ queue: events.queue, dedupWindowHours: 48, attempts: 8 }),
      rejected: createRejectedStore({
        redis: events.connection,
        queueName: redis.QUEUE_NAME,
        maxCount: 1000,
        maxAgeHours: 1,
      }),
      checkReady: events.ping,
    });
    close = async () => {
      await events.queue.obliterate({ force: true });
      await events.close();
      await closeRedis(events.connection);
    };
  } else if (kind === 'bare-enqueue') {
    // Diagnostic: the floor plus the one thing the listener must do before a 200 — a BullMQ add on
    // the listener's own producer connection — and nothing else (no signature, parse or schema).
    const events = createEventQueue({
      connection: openProducerConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
      queueName,
    });
    let n = 0;
    app = express();
    app.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
      await events.queue.add('bench', { body: (req.body as Buffer).length }, { jobId: `b-${n++}` });
      res.status(200).json({ status: 'ok' });
    });
    close = async () => {
      await events.queue.obliterate({ force: true });
      await events.close();
      await closeRedis(events.connection);
    };
  } else if (kind === 'bare') {
    app = express();
    app.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), (_req, res) => {
      res.status(200).json({ status: 'ok' });
    });
  } else {
    throw new Error(
      'usage: listener-server.ts listener|listener-no-redis|bare|bare-enqueue [queue]',
    );
  }
  const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`port=${(server.address() as AddressInfo).port}\n`);
  });
  reportCpuPerRequest(server);
  process.on('SIGTERM', () => {
    server.close();
    void close().finally(() => process.exit(0));
  });
}

void main();
