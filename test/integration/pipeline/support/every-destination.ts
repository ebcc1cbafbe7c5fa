import { randomUUID } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import mqtt from 'mqtt';
import { connect } from 'nats';
import type { NatsConnection } from 'nats';
import { Connection } from 'rabbitmq-client';
import { startHttpReceiver } from '../../../component/routes/support/http-receiver';
import type { HttpReceiver } from '../../../component/routes/support/http-receiver';
import { createTestSchema } from '../../../helpers/postgres';
import { TEST_POSTGRES_URL } from '../../../helpers/postgres';
import { TEST_REDIS_URL } from '../../../helpers/redis';

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const MQTT_URL = process.env.MQTT_URL ?? 'mqtt://127.0.0.1:1883';

/** The seven destination kinds, one route each, every route matching every event. */
export const ROUTE_NAMES = ['hook', 'mq', 'js', 'stream', 'archive', 'report', 'display'] as const;

/** What each destination holds, read from the destination itself. */
export interface EveryDestination {
  /** Writes the routes file (quick retries) into `dir`; resolves with its path. */
  writeRoutes(dir: string): Promise<string>;
  /** The event ids each route's destination received (AMQP and NATS: a count of messages). */
  receivedIds(): Promise<Record<(typeof ROUTE_NAMES)[number], ReadonlySet<string>>>;
  close(): Promise<void>;
}

/**
 * A real destination of each kind on the machine's brokers, each under names of its own: an HTTP
 * receiver on port 0, a RabbitMQ exchange with a queue bound to it, a JetStream stream, a Redis
 * stream, a JSONL directory, a PostgreSQL table in a schema of its own, an MQTT topic.
 */
export async function startEveryDestination(dir: string): Promise<EveryDestination> {
  const token = randomUUID().replaceAll('-', '').slice(0, 10);
  const receiver: HttpReceiver = await startHttpReceiver();
  const rabbit = new Connection(AMQP_URL);
  const exchange = `fuzz-${token}`;
  await rabbit.exchangeDeclare({ exchange, type: 'topic', durable: false, autoDelete: false });
  await rabbit.queueDeclare({ queue: exchange, exclusive: false, autoDelete: false });
  await rabbit.queueBind({ queue: exchange, exchange, routingKey: '#' });
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  const stream = `FUZZ_${token}`;
  await (await nc.jetstreamManager()).streams.add({ name: stream, subjects: [`${stream}.>`] });
  const pg = await createTestSchema('fuzz_report');
  const topic = `svcws/fuzz/${token}`;
  const displayed = new Set<string>();
  const subscriber = await mqtt.connectAsync(MQTT_URL, { protocolVersion: 5 });
  subscriber.on('message', (_topic, _payload, packet) => {
    const id = packet.properties?.userProperties?.['x-svc-event-id'];
    if (typeof id === 'string') displayed.add(id);
  });
  await subscriber.subscribeAsync(topic, { qos: 1 });
  const redisStream = `fuzz:${token}`;
  const archive = join(dir, 'archive');
  const redis = new Redis(TEST_REDIS_URL);
  const queued = new Set<string>();

  return {
    writeRoutes: async (into) => {
      const file = join(into, 'routes.yaml');
      const retry = 'retry: { attempts: 2, backoffMs: 100 }';
      await writeFile(
        file,
        'routes:\n' +
          `  - name: hook\n    to: { http: { url: "${receiver.url}", timeoutMs: 5000 } }\n    ${retry}\n` +
          `  - name: mq\n    to: { amqp: { url: "${AMQP_URL}", exchange: "${exchange}", timeoutMs: 5000 } }\n    ${retry}\n` +
          `  - name: js\n    to: { nats: { servers: "${NATS_URL}", subject: "${stream}.events", timeoutMs: 5000 } }\n    ${retry}\n` +
          `  - name: stream\n    to: { redisStream: { stream: "${redisStream}", url: "${TEST_REDIS_URL}" } }\n    ${retry}\n` +
          `  - name: archive\n    to: { file: { dir: "${archive}" } }\n    ${retry}\n` +
          `  - name: report\n    to: { postgres: { url: "${TEST_POSTGRES_URL}", table: ${pg.schema}.events } }\n    ${retry}\n` +
          `  - name: display\n    to: { mqtt: { url: "${MQTT_URL}", topic: "${topic}", qos: 1 } }\n    ${retry}\n`,
      );
      return file;
    },
    receivedIds: async () => ({
      hook: new Set(receiver.accepted),
      mq: await amqpIds(rabbit, exchange, queued),
      js: await natsIds(nc, stream),
      stream: new Set(
        (await redis.xrange(redisStream, '-', '+')).map(([, fields]) => fields[1] ?? ''),
      ),
      archive: await archivedIds(archive),
      report: new Set(
        (
          await pg.client
            .query<{ event_id: string }>(`SELECT event_id FROM ${pg.schema}.events`)
            .catch(() => ({ rows: [] }))
        ).rows.map((row) => row.event_id),
      ),
      display: new Set(displayed),
    }),
    close: async () => {
      await receiver.close();
      await rabbit.queueDelete({ queue: exchange }).catch(() => undefined);
      await rabbit.exchangeDelete({ exchange }).catch(() => undefined);
      await rabbit.close();
      await (await nc.jetstreamManager()).streams.delete(stream).catch(() => undefined);
      await nc.close();
      await subscriber.endAsync();
      await redis.del(redisStream);
      redis.disconnect();
      await pg.drop();
    },
  };
}

/** Takes the queue's new messages and adds their ids to `seen` (every id read so far). */
async function amqpIds(
  rabbit: Connection,
  queue: string,
  seen: Set<string>,
): Promise<ReadonlySet<string>> {
  for (;;) {
    const message = await rabbit.basicGet({ queue, noAck: true });
    if (message === undefined) return seen;
    if (typeof message.messageId === 'string') seen.add(message.messageId);
  }
}

async function natsIds(nc: NatsConnection, stream: string): Promise<ReadonlySet<string>> {
  const jsm = await nc.jetstreamManager();
  const { state } = await jsm.streams.info(stream);
  const ids = new Set<string>();
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq += 1) {
    const message = await jsm.streams.getMessage(stream, { seq });
    const id = message.header.get('Nats-Msg-Id');
    if (id !== '') ids.add(id);
  }
  return ids;
}

async function archivedIds(dir: string): Promise<ReadonlySet<string>> {
  const ids = new Set<string>();
  for (const file of await readdir(dir).catch(() => [] as string[])) {
    for (const line of (await readFile(join(dir, file), 'utf8')).split('\n')) {
      if (line !== '') ids.add((JSON.parse(line) as { id: string }).id);
    }
  }
  return ids;
}
