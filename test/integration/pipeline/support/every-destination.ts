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
import { TEST_AMQP_URL, TEST_MQTT_URL, TEST_NATS_URL } from '../../../helpers/test-services';

const AMQP_URL = TEST_AMQP_URL;
const NATS_URL = TEST_NATS_URL;
const MQTT_URL = TEST_MQTT_URL;

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

/** Each destination's client and names. */
interface Brokers {
  readonly receiver: HttpReceiver;
  readonly rabbit: Connection;
  readonly exchange: string;
  readonly nc: NatsConnection;
  readonly stream: string;
  readonly pg: Awaited<ReturnType<typeof createTestSchema>>;
  readonly topic: string;
  readonly subscriber: mqtt.MqttClient;
  /** Event ids of the MQTT messages seen so far. */
  readonly displayed: Set<string>;
  readonly redisStream: string;
  readonly archive: string;
  readonly redis: Redis;
  /** Event ids taken off the AMQP queue so far. */
  readonly queued: Set<string>;
}

/**
 * A real destination of each kind on the machine's brokers, each under names of its own: an HTTP
 * receiver on port 0, a RabbitMQ exchange with a queue bound to it, a JetStream stream, a Redis
 * stream, a JSONL directory, a PostgreSQL table in a schema of its own, an MQTT topic.
 */
export async function startEveryDestination(dir: string): Promise<EveryDestination> {
  const token = randomUUID().replaceAll('-', '').slice(0, 10);
  const rabbit = new Connection(AMQP_URL);
  const exchange = `fuzz-${token}`;
  await rabbit.exchangeDeclare({ exchange, type: 'topic', durable: false, autoDelete: false });
  await rabbit.queueDeclare({ queue: exchange, exclusive: false, autoDelete: false });
  await rabbit.queueBind({ queue: exchange, exchange, routingKey: '#' });
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  const stream = `FUZZ_${token}`;
  await (await nc.jetstreamManager()).streams.add({ name: stream, subjects: [`${stream}.>`] });
  const topic = `svcws/fuzz/${token}`;
  const displayed = new Set<string>();
  const subscriber = await mqtt.connectAsync(MQTT_URL, { protocolVersion: 5 });
  subscriber.on('message', (_topic, _payload, packet) => {
    const id = packet.properties?.userProperties?.['x-svc-event-id'];
    if (typeof id === 'string') displayed.add(id);
  });
  await subscriber.subscribeAsync(topic, { qos: 1 });
  const brokers: Brokers = {
    receiver: await startHttpReceiver(),
    rabbit,
    exchange,
    nc,
    stream,
    pg: await createTestSchema('fuzz_report'),
    topic,
    subscriber,
    displayed,
    redisStream: `fuzz:${token}`,
    archive: join(dir, 'archive'),
    redis: new Redis(TEST_REDIS_URL),
    queued: new Set(),
  };
  return {
    writeRoutes: (into) => writeRoutes(brokers, into),
    receivedIds: () => receivedIds(brokers),
    close: () => closeBrokers(brokers),
  };
}

async function writeRoutes(b: Brokers, into: string): Promise<string> {
  const file = join(into, 'routes.yaml');
  const retry = 'retry: { attempts: 2, backoffMs: 100 }';
  const to: Record<(typeof ROUTE_NAMES)[number], string> = {
    hook: `http: { url: "${b.receiver.url}", timeoutMs: 5000 }`,
    mq: `amqp: { url: "${AMQP_URL}", exchange: "${b.exchange}", timeoutMs: 5000 }`,
    js: `nats: { servers: "${NATS_URL}", subject: "${b.stream}.events", timeoutMs: 5000 }`,
    stream: `redisStream: { stream: "${b.redisStream}", url: "${TEST_REDIS_URL}" }`,
    archive: `file: { dir: "${b.archive}" }`,
    report: `postgres: { url: "${TEST_POSTGRES_URL}", table: ${b.pg.schema}.events }`,
    display: `mqtt: { url: "${MQTT_URL}", topic: "${b.topic}", qos: 1 }`,
  };
  const routes = ROUTE_NAMES.map(
    (name) => `  - name: ${name}\n    to: { ${to[name]} }\n    ${retry}\n`,
  );
  await writeFile(file, `routes:\n${routes.join('')}`);
  return file;
}

async function receivedIds(b: Brokers): ReturnType<EveryDestination['receivedIds']> {
  const reported = await b.pg.client
    .query<{ event_id: string }>(`SELECT event_id FROM ${b.pg.schema}.events`)
    .catch(() => ({ rows: [] }));
  return {
    hook: new Set(b.receiver.accepted),
    mq: await amqpIds(b.rabbit, b.exchange, b.queued),
    js: await natsIds(b.nc, b.stream),
    stream: new Set(
      (await b.redis.xrange(b.redisStream, '-', '+')).map(([, fields]) => fields[1] ?? ''),
    ),
    archive: await archivedIds(b.archive),
    report: new Set(reported.rows.map((row) => row.event_id)),
    display: new Set(b.displayed),
  };
}

async function closeBrokers(b: Brokers): Promise<void> {
  await b.receiver.close();
  await b.rabbit.queueDelete({ queue: b.exchange }).catch(() => undefined);
  await b.rabbit.exchangeDelete({ exchange: b.exchange }).catch(() => undefined);
  await b.rabbit.close();
  await (await b.nc.jetstreamManager()).streams.delete(b.stream).catch(() => undefined);
  await b.nc.close();
  await b.subscriber.endAsync();
  await b.redis.del(b.redisStream);
  b.redis.disconnect();
  await b.pg.drop();
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
