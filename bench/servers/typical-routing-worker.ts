import { open } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Connection } from 'rabbitmq-client';

/**
 * The routing bench's one-hop peer worker: a BullMQ worker written the usual way, which takes the
 * job the typical listener (typical-listener-server.ts) added and, in the same job, publishes it
 * to RabbitMQ with publisher confirms (persistent, the event id as message id) and appends it as a
 * line to one file, fsync'd before the job completes. No routes file, no matching, no per-route
 * queue, retries or metrics, and no log line per job. Prints `ready` once its worker runs.
 */
const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
  maxRetriesPerRequest: null,
});
const rabbit = new Connection(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
const publisher = rabbit.createPublisher({ confirm: true });
const exchange = process.env.PEER_EXCHANGE ?? 'bench-peer';
const file = open(path.join(process.env.PEER_DIR ?? '.', 'peer.jsonl'), 'a');

interface Event {
  readonly id: string;
  readonly action: string;
  readonly event?: { readonly value?: string };
}

const worker = new Worker<Event>(
  process.env.QUEUE_NAME ?? 'bench-typical',
  async (job) => {
    const event = job.data;
    const body = JSON.stringify(event);
    await publisher.send(
      {
        exchange,
        routingKey: `${event.action.toLowerCase()}.${event.event?.value ?? 'none'}`,
        messageId: event.id,
        contentType: 'application/json',
        durable: true,
      },
      body,
    );
    const handle = await file;
    await handle.appendFile(`${body}\n`);
    await handle.sync();
  },
  { connection, concurrency: Number(process.env.WORKER_CONCURRENCY ?? 64) },
);
worker.on('error', () => undefined);
process.on('SIGTERM', () => {
  void worker
    .close()
    .then(async () => {
      await publisher.close();
      await rabbit.close();
      await (await file).close();
      connection.disconnect();
    })
    .finally(() => process.exit(0));
});
void worker.waitUntilReady().then(() => process.stdout.write('ready\n'));
