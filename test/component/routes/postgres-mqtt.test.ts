import { randomBytes } from 'node:crypto';
import { connectAsync } from 'mqtt';
import type { MqttClient } from 'mqtt';
import type { Client } from 'pg';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { DeliveryError } from '../../../src/routes/delivery-error';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import {
  createMqttDestination,
  MqttDestinationOptions,
} from '../../../src/routes/destinations/mqtt';
import {
  createPostgresDestination,
  PostgresDestinationOptions,
} from '../../../src/routes/destinations/postgres';
import { createTestSchema, TEST_POSTGRES_URL } from '../../helpers/postgres';
import { eventually, routeEvent, silentLogger } from './support/route-events';
import { TEST_MQTT_URL } from '../../helpers/test-services';

const MQTT_URL = TEST_MQTT_URL;

describe('postgres destination (real PostgreSQL)', () => {
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  let client: Client;
  beforeEach(async () => {
    schema = await createTestSchema('routes_pg');
    client = schema.client;
  });
  afterEach(async () => {
    await schema.drop();
  });

  it('creates the table, inserts one row per event id however often it is delivered, body as jsonb', async () => {
    const table = `${schema.schema}.events`;
    const destination = createPostgresDestination(
      PostgresDestinationOptions.parse({ url: TEST_POSTGRES_URL, table }),
    );
    const event = routeEvent();
    const other = routeEvent({ institution: { value: '01OTHER' } });
    try {
      await destination.deliver(event, JSON.stringify({ text: 'Loan 234001' }));
      await destination.deliver(event, JSON.stringify({ text: 'again' }));
      await destination.deliver(event);
      await destination.deliver({ ...other, id: event.id });
    } finally {
      await destination.close();
    }
    const { rows } = await client.query(
      `SELECT event_id, institution, action, event_code, event_time, body FROM ${table} ORDER BY institution`,
    );
    expect(rows).toEqual([
      {
        event_id: event.id,
        institution: '01ABC_INST',
        action: 'loan',
        event_code: 'LOAN_CREATED',
        event_time: event.time,
        body: { text: 'Loan 234001' },
      },
      expect.objectContaining({ event_id: event.id, institution: '01OTHER' }) as unknown,
    ]);
  });

  it('a table of another shape fails the delivery with the reason, not retryable', async () => {
    const table = `${schema.schema}.wrong`;
    await client.query(`CREATE TABLE ${table} (id int)`);
    const destination = createPostgresDestination(
      PostgresDestinationOptions.parse({ url: TEST_POSTGRES_URL, table }),
    );
    try {
      const error: unknown = await destination.deliver(routeEvent()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeliveryError);
      expect((error as DeliveryError).retryable).toBe(false);
      expect((error as DeliveryError).message).toMatch(/event_id.*\(42703\)/);
    } finally {
      await destination.close();
    }
  });

  it('a database that does not answer is retryable, the password not in the reason', async () => {
    const destination = createPostgresDestination(
      PostgresDestinationOptions.parse({
        url: 'postgres://app:pw-secret@127.0.0.1:1/test',
        table: 'events',
        timeoutMs: 2000,
      }),
    );
    try {
      const error = (await destination
        .deliver(routeEvent())
        .catch((e: unknown) => e)) as DeliveryError;
      expect(error.retryable).toBe(true);
      expect(error.message).not.toContain('pw-secret');
    } finally {
      await destination.close();
    }
  });
});

describe('mqtt destination (real Mosquitto)', () => {
  let subscriber: MqttClient;
  let prefix: string;
  const received: { topic: string; body: string; eventId: unknown; qos: number }[] = [];

  beforeEach(async () => {
    prefix = `svcws-test/${randomBytes(6).toString('hex')}`;
    received.length = 0;
    subscriber = await connectAsync(MQTT_URL, { protocolVersion: 5 });
    subscriber.on('message', (topic, payload, packet) => {
      received.push({
        topic,
        body: payload.toString('utf8'),
        eventId: packet.properties?.userProperties?.['x-svc-event-id'],
        qos: packet.qos,
      });
    });
    await subscriber.subscribeAsync(`${prefix}/#`, { qos: 1 });
  });
  afterEach(async () => {
    await subscriber.endAsync();
  });

  it('publishes the shaped body at QoS 1 to the rendered topic, resolved on PUBACK', async () => {
    const destination = createMqttDestination(
      MqttDestinationOptions.parse({
        url: MQTT_URL,
        topic: `${prefix}/{institution}/{item_loan.library.value}`,
      }),
      { route: 'display', logger: silentLogger, redisUrl: 'redis://unused' },
    );
    const event = routeEvent({ item_loan: { loan_id: '1', library: { value: 'MAIN' } } });
    try {
      await destination.deliver(event, '{"text":"Loan 1"}');
    } finally {
      await destination.close();
    }
    await eventually(() => received.length === 1, 'the message');
    expect(received[0]).toEqual({
      topic: `${prefix}/01ABC_INST/MAIN`,
      body: '{"text":"Loan 1"}',
      eventId: event.id,
      qos: 1,
    });
  });

  it('refuses wildcards in the topic and a broker that does not answer is retryable', async () => {
    expect(MqttDestinationOptions.safeParse({ url: MQTT_URL, topic: 'a/+/b' }).success).toBe(false);
    const destination = createMqttDestination(
      MqttDestinationOptions.parse({ url: 'mqtt://127.0.0.1:1', topic: 't', timeoutMs: 1500 }),
      { route: 'r', logger: silentLogger, redisUrl: 'redis://unused' },
    );
    try {
      const error = (await destination
        .deliver(routeEvent())
        .catch((e: unknown) => e)) as DeliveryError;
      expect(error).toBeInstanceOf(DeliveryError);
      expect(error.retryable).toBe(true);
    } finally {
      await destination.close();
    }
  });
});

describe('postgres and mqtt routes in the routes file', () => {
  it('deliver once per event id even when the event is fanned out again', async () => {
    const schema = await createTestSchema('routes_pg');
    const prefix = `svcws-test/${randomBytes(6).toString('hex')}`;
    const subscriber = await connectAsync(MQTT_URL, { protocolVersion: 5 });
    const topics: string[] = [];
    subscriber.on('message', (topic) => topics.push(topic));
    await subscriber.subscribeAsync(`${prefix}/#`, { qos: 1 });
    const connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    const file = `routes:
  - name: reporting
    to: { postgres: { url: "${TEST_POSTGRES_URL}", table: ${schema.schema}.events } }
  - name: display
    send: { mask: patron }
    to: { mqtt: { url: "${MQTT_URL}", topic: "${prefix}/{action}" } }
`;
    const routing = startRouting({
      connection,
      routes: parseRoutesFile(file, {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('pg-mqtt'),
      logger: silentLogger,
    });
    try {
      const event = routeEvent();
      await routing.fanOut(event, jobIdForEvent(event.id));
      await routing.fanOut(event, jobIdForEvent(event.id));
      const reporting = routing.queues.get('reporting');
      const display = routing.queues.get('display');
      await eventually(
        async () =>
          (await reporting?.getCompletedCount()) === 1 &&
          (await display?.getCompletedCount()) === 1,
        'both deliveries',
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { rows } = await schema.client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${schema.schema}.events`,
      );
      expect(rows[0]?.n).toBe('1');
      expect(topics).toEqual([`${prefix}/loan`]);
    } finally {
      await routing.close();
      for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
      await closeRedis(connection);
      await subscriber.endAsync();
      await schema.drop();
    }
  });
});
