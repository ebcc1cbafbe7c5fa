import { createHmac, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { connect } from 'nats';
import type { NatsConnection } from 'nats';
import { Connection } from 'rabbitmq-client';
import { DeliveryError } from '../../../src/routes/delivery-error';
import { createAmqpDestination } from '../../../src/routes/destinations/amqp';
import type { Destination } from '../../../src/routes/destinations/destination';
import {
  FileDestinationOptions,
  createFileDestination,
} from '../../../src/routes/destinations/file';
import {
  createHttpDestination,
  HttpDestinationOptions,
} from '../../../src/routes/destinations/http';
import { createNatsDestination } from '../../../src/routes/destinations/nats';
import { createRedisStreamDestination } from '../../../src/routes/destinations/redis-stream';
import { TEST_REDIS_URL } from '../../helpers/redis';
import { routeEvent, silentLogger } from './support/route-events';
import { TEST_AMQP_URL, TEST_NATS_URL } from '../../helpers/test-services';

const AMQP_URL = TEST_AMQP_URL;
const NATS_URL = TEST_NATS_URL;
const context = { route: 'test-route', logger: silentLogger, redisUrl: TEST_REDIS_URL };

const execFileAsync = promisify(execFile);

async function failureOf(delivery: Promise<void>): Promise<DeliveryError> {
  try {
    await delivery;
  } catch (error) {
    if (error instanceof DeliveryError) return error;
    throw error;
  }
  throw new Error('the delivery succeeded');
}

describe('http destination', () => {
  let server: http.Server;
  let url: string;
  let answer: { status: number; headers?: Record<string, string> };
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let destination: Destination;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answer.status, answer.headers).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hook`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    answer = { status: 204 };
    destination = createHttpDestination(
      HttpDestinationOptions.parse({
        url,
        secret: 'receiver-secret',
        headers: { 'x-tenant': 't1' },
        timeoutMs: 1000,
      }),
      'bib-indexer',
    );
  });

  it('POSTs the event with its ids and a signature the platform verifier accepts', async () => {
    const event = routeEvent();
    await destination.deliver(event);
    const [request] = received;
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': event.id,
      'x-svc-event-id': event.id,
      'x-svc-event-action': 'loan',
      'x-svc-route': 'bib-indexer',
      'x-tenant': 't1',
    });
    const body = request?.body ?? '';
    expect(JSON.parse(body)).toEqual(event);
    expect(request?.headers['x-svc-signature']).toBe(
      createHmac('sha256', 'receiver-secret').update(body).digest('base64'),
    );
  });

  it('fails a 4xx at once, and retries 5xx, 408 and 429 with its Retry-After', async () => {
    answer = { status: 422 };
    expect(await failureOf(destination.deliver(routeEvent()))).toMatchObject({
      retryable: false,
      message: expect.stringContaining('HTTP 422') as unknown,
    });
    answer = { status: 503 };
    expect((await failureOf(destination.deliver(routeEvent()))).retryable).toBe(true);
    answer = { status: 408 };
    expect((await failureOf(destination.deliver(routeEvent()))).retryable).toBe(true);
    answer = { status: 429, headers: { 'retry-after': '7' } };
    expect(await failureOf(destination.deliver(routeEvent()))).toMatchObject({
      retryable: true,
      retryAfterMs: 7000,
    });
  });

  it('retries a refused connection', async () => {
    const gone = http.createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((resolve) => gone.close(resolve));
    const closed = createHttpDestination(
      HttpDestinationOptions.parse({ url: `http://127.0.0.1:${String(port)}/hook` }),
      'r',
    );
    const failure = await failureOf(closed.deliver(routeEvent()));
    expect(failure.retryable).toBe(true);
    expect(failure.message).toContain('ECONNREFUSED');
  });
});

describe('amqp destination', () => {
  let rabbit: Connection;
  let exchange: string;
  let queue: string;
  let destination: Destination;

  beforeEach(async () => {
    rabbit = new Connection(AMQP_URL);
    exchange = `test-ex-${randomUUID().slice(0, 8)}`;
    destination = createAmqpDestination(
      { url: AMQP_URL, exchange, routingKey: '{action}.{event}', timeoutMs: 5000 },
      context,
    );
  });
  afterEach(async () => {
    await destination.close();
    await rabbit.exchangeDelete({ exchange }).catch(() => undefined);
    if (queue) await rabbit.queueDelete({ queue }).catch(() => undefined);
    await rabbit.close();
  });

  it('declares an absent exchange as a durable topic and publishes a persistent message with the ids', async () => {
    // A first delivery declares the exchange; nothing is bound yet, so the broker returns the
    // message (mandatory) and the delivery fails instead of vanishing.
    const unbound = await failureOf(destination.deliver(routeEvent()));
    expect(unbound.retryable).toBe(true);
    expect(unbound.message).toBe(
      `${AMQP_URL.replace(':guest@', ':***@')} exchange ${exchange}: unroutable: no queue is bound for routing key loan.LOAN_CREATED (312 NO_ROUTE)`,
    );
    await rabbit.exchangeDeclare({ exchange, passive: true });
    ({ queue } = await rabbit.queueDeclare({ exclusive: false, autoDelete: false }));
    await rabbit.queueBind({ queue, exchange, routingKey: 'loan.*' });
    const event = routeEvent();
    await destination.deliver(event);
    const message = await rabbit.basicGet({ queue, noAck: true });
    expect(message).toMatchObject({
      routingKey: 'loan.LOAN_CREATED',
      messageId: event.id,
      contentType: 'application/json',
      durable: true,
      headers: { 'x-svc-event-action': 'loan', 'x-svc-route': 'test-route' },
    });
    // rabbitmq-client decodes an application/json body.
    expect(message?.body).toEqual(event);
    // A topic exchange: a key the binding does not take reaches no queue, and fails the delivery.
    const request = routeEvent({ action: 'request' });
    const failure = await failureOf(destination.deliver(request));
    expect(failure.message).toContain('unroutable: no queue is bound for routing key request.');
    expect(await rabbit.basicGet({ queue, noAck: true })).toBeUndefined();
    // Once a queue takes it, the same event is delivered (the route's retry or a replay).
    await rabbit.queueBind({ queue, exchange, routingKey: 'request.*' });
    await destination.deliver(request);
    expect(await rabbit.basicGet({ queue, noAck: true })).toMatchObject({ messageId: request.id });
  });

  it('fails retryably while the broker cannot be reached', async () => {
    const away = createAmqpDestination(
      { url: 'amqp://guest:guest@127.0.0.1:1', exchange, routingKey: '{action}', timeoutMs: 500 },
      context,
    );
    try {
      const failure = await failureOf(away.deliver(routeEvent()));
      expect(failure.retryable).toBe(true);
      expect(failure.message).toContain('amqp://guest:***@127.0.0.1:1');
      expect(failure.message).not.toContain('guest:guest');
    } finally {
      await away.close();
    }
  });
});

describe('nats destination', () => {
  let nc: NatsConnection;
  let stream: string;
  let destination: Destination;

  beforeEach(async () => {
    nc = await connect({ servers: NATS_URL });
    stream = `TEST_${randomUUID().slice(0, 8)}`;
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
    destination = createNatsDestination(
      { servers: NATS_URL, subject: `${stream}.{action}.{event}`, timeoutMs: 3000 },
      context,
    );
  });
  afterEach(async () => {
    await destination.close();
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  });

  it('publishes to JetStream with Nats-Msg-Id, so a second publish of the event is dropped', async () => {
    const event = routeEvent();
    await destination.deliver(event);
    await destination.deliver(event);
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(stream);
    expect(info.state.messages).toBe(1);
    const stored = await jsm.streams.getMessage(stream, { seq: 1 });
    expect(stored.subject).toBe(`${stream}.loan.LOAN_CREATED`);
    expect(stored.header.get('Nats-Msg-Id')).toBe(event.id);
    expect(stored.header.get('X-Svc-Route')).toBe('test-route');
    expect(JSON.parse(new TextDecoder().decode(stored.data))).toEqual(event);
  });

  it('fails at once, with that reason, when no stream covers the subject', async () => {
    const nowhere = createNatsDestination(
      { servers: NATS_URL, subject: 'no-stream-here.{id}', timeoutMs: 3000 },
      context,
    );
    try {
      const failure = await failureOf(nowhere.deliver(routeEvent()));
      expect(failure.retryable).toBe(false);
      expect(failure.message).toMatch(/no JetStream stream covers subject no-stream-here\.\d+/);
    } finally {
      await nowhere.close();
    }
  });
});

describe('redis stream destination', () => {
  const stream = `test-stream-${randomUUID().slice(0, 8)}`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await redis.del(stream);
    await redis.quit();
  });

  it('XADDs id, action and the event, trimmed to about maxLen', async () => {
    const destination = createRedisStreamDestination(
      { stream, maxLen: 10, timeoutMs: 2000 },
      context,
    );
    const events = Array.from({ length: 300 }, () => routeEvent());
    try {
      for (const event of events) await destination.deliver(event);
    } finally {
      await destination.close();
    }
    const entries = await redis.xrevrange(stream, '+', '-', 'COUNT', 1);
    const fields = entries[0]?.[1] ?? [];
    const last = events.at(-1);
    expect(fields).toEqual(['id', last?.id, 'action', 'loan', 'event', JSON.stringify(last)]);
    // Approximate trimming keeps whole nodes (100 entries by default): fewer than all, at least 10.
    const length = await redis.xlen(stream);
    expect(length).toBeGreaterThanOrEqual(10);
    expect(length).toBeLessThan(300);
  });
});

describe('file destination', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-archive-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends one JSON line per event to the UTC day file, all of a burst', async () => {
    const destination = createFileDestination(
      FileDestinationOptions.parse({ dir: join(dir, '{institution}') }),
    );
    const events = Array.from({ length: 50 }, () => routeEvent());
    await Promise.all(events.map((event) => destination.deliver(event)));
    await destination.close();
    const day = new Date().toISOString().slice(0, 10);
    expect(await readdir(join(dir, '01ABC_INST'))).toEqual([`${day}.jsonl`]);
    const lines = (await readFile(join(dir, '01ABC_INST', `${day}.jsonl`), 'utf8'))
      .trimEnd()
      .split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id).sort()).toEqual(
      events.map((event) => event.id).sort(),
    );
  });

  it('fails retryably, saying so, when the directory cannot be made (a regular file in the way)', async () => {
    await writeFile(join(dir, 'taken'), '');
    const archive = join(dir, 'taken', 'archive');
    const destination = createFileDestination(FileDestinationOptions.parse({ dir: archive }));

    const failure = await failureOf(destination.deliver(routeEvent()));

    expect(failure.retryable).toBe(true);
    expect(failure.message).toBe(`file ${archive}: cannot create the directory (ENOTDIR)`);
  });

  it('fails at once under /proc, where mkdir -p of Node never ends', async () => {
    const archive = `/proc/svcws-archive-${String(process.pid)}/day`;
    const destination = createFileDestination(
      FileDestinationOptions.parse({ dir: archive, timeoutMs: 3000 }),
    );
    const started = Date.now();

    const failure = await failureOf(destination.deliver(routeEvent()));

    expect(failure.message).toBe(`file ${archive}: cannot create the directory (ENOENT)`);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('fails with the timeout named when the line is not written in time', async () => {
    // A FIFO with no reader: opening it for append blocks, as a hung mount would.
    const fifoDir = join(dir, 'fifo');
    await mkdir(fifoDir);
    const day = new Date().toISOString().slice(0, 10);
    await execFileAsync('mkfifo', [join(fifoDir, `${day}.jsonl`)]);
    const destination = createFileDestination(
      FileDestinationOptions.parse({ dir: fifoDir, timeoutMs: 300 }),
    );

    const failure = await failureOf(destination.deliver(routeEvent()));

    expect(failure.retryable).toBe(true);
    expect(failure.message).toBe(
      `file ${join(fifoDir, `${day}.jsonl`)}: no line written and fsynced within 300 ms`,
    );
    // Let the blocked open end, so the test leaves no thread behind.
    const reader = await open(join(fifoDir, `${day}.jsonl`), 'r');
    await reader.close();
  });
});
