import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import type { NatsConnection } from 'nats';
import { Connection } from 'rabbitmq-client';
import { attemptDelivery } from '../../../src/routes/attempt-delivery';
import type { CircuitBreaker } from '../../../src/routes/circuit-breaker';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { createHttpDestination } from '../../../src/routes/destinations/http';
import { deliverInChild } from '../../helpers/deliver-in-child';
import { startHttpReceiver } from './support/http-receiver';
import type { HttpReceiver } from './support/http-receiver';
import { routeEvent, silentLogger } from './support/route-events';
import { TEST_AMQP_URL, TEST_MQTT_URL, TEST_NATS_URL } from '../../helpers/test-services';

const MQTT_URL = TEST_MQTT_URL;
const AMQP_URL = TEST_AMQP_URL;
const NATS_URL = TEST_NATS_URL;

/** A LOAN whose numeric id has 400,000 digits: under BODY_LIMIT, kept exact as text. */
const LONG_ID = '7'.repeat(400_000);

describe('a value a destination protocol cannot carry fails that delivery alone, at once', () => {
  it('MQTT: an event id of 400,000 digits leaves the worker process alive, failed permanently naming the property', async () => {
    const topic = `svcws/test/${randomUUID().slice(0, 8)}`;
    const outcome = await deliverInChild({
      kind: 'mqtt',
      options: { url: MQTT_URL, topic, timeoutMs: 5000 },
      event: routeEvent({ id: LONG_ID }),
    });
    expect(outcome.stderr).not.toContain('ERR_INVALID_ARG_TYPE');
    expect(outcome.exitCode).toBe(0);
    expect(outcome.error).toMatchObject({
      name: 'DeliveryError',
      retryable: false,
      field: 'user property x-svc-event-id',
    });
    expect(outcome.error?.message).toContain('is longer than 65,535 bytes');
  });

  it('AMQP: a messageId over 255 bytes fails permanently, naming messageId', async () => {
    const exchange = `test-ex-${randomUUID().slice(0, 8)}`;
    const outcome = await deliverInChild({
      kind: 'amqp',
      options: { url: AMQP_URL, exchange, timeoutMs: 5000 },
      event: routeEvent({ id: 'é'.repeat(128) }),
    });
    const rabbit = new Connection(AMQP_URL);
    await rabbit.exchangeDelete({ exchange }).catch(() => undefined);
    await rabbit.close();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.error).toMatchObject({ retryable: false, field: 'messageId' });
    expect(outcome.error?.message).toContain('messageId is longer than 255 bytes');
  });

  describe('NATS', () => {
    let nc: NatsConnection;
    const stream = `TEST_${randomUUID().slice(0, 8)}`;
    beforeAll(async () => {
      nc = await connect({ servers: NATS_URL });
      await (await nc.jetstreamManager()).streams.add({ name: stream, subjects: [`${stream}.>`] });
    });
    afterAll(async () => {
      await (await nc.jetstreamManager()).streams.delete(stream).catch(() => undefined);
      await nc.close();
    });

    it('a header with CR/LF fails permanently, naming the header, and nothing is published', async () => {
      const outcome = await deliverInChild({
        kind: 'nats',
        options: { servers: NATS_URL, subject: `${stream}.{action}`, timeoutMs: 3000 },
        event: routeEvent({ id: '4711\r\nX-Forged: 1' }),
      });
      expect(outcome.exitCode).toBe(0);
      expect(outcome.error).toMatchObject({ retryable: false, field: 'header Nats-Msg-Id' });
      expect(outcome.error?.message).toContain('holds a CR, LF or NUL');
      expect((await (await nc.jetstreamManager()).streams.info(stream)).state.messages).toBe(0);
    });
  });

  describe('HTTP', () => {
    let receiver: HttpReceiver;
    beforeEach(async () => {
      receiver = await startHttpReceiver();
    });
    afterEach(async () => {
      await receiver.close();
    });

    it.each([
      ['CR/LF', '4711\r\nX-Forged: 1', 'holds a CR, LF or NUL'],
      ['a character above U+00FF', '4711\u20ac', 'holds a character above U+00FF'],
    ])('an id with %s fails permanently, not counted toward the circuit', async (_c, id, why) => {
      const counted: string[] = [];
      const circuit: CircuitBreaker = {
        admit: () => Promise.resolve({ kind: 'pass' }),
        failed: () => Promise.resolve(void counted.push('failed')),
        succeeded: () => Promise.resolve(void counted.push('succeeded')),
        closedNow: () => true,
      };
      const [route] = parseRoutesFile(
        `routes:\n  - name: hook\n    to: { http: { url: "${receiver.url}" } }\n`,
        {},
      ).routes;
      if (route === undefined || route.to.kind !== 'http') throw new Error('no route');
      const destination = createHttpDestination(route.to.options, route.name);
      const outcome = await attemptDelivery(
        { route, destination, logger: silentLogger, circuit },
        routeEvent({ id }),
        { number: 1, of: 5 },
      );
      expect(outcome).toMatchObject({ kind: 'failed', retryable: false });
      expect(outcome.kind === 'failed' ? outcome.reason : '').toContain(
        `header idempotency-key ${why}`,
      );
      expect(counted).toEqual([]);
      expect(receiver.requests()).toBe(0);
    });
  });
});
