import { randomInt, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from 'rabbitmq-client';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox } from '@svcws/sandbox';
import { WorkerConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { eventually } from '../../component/routes/support/route-events';
import { captureLogger } from '../../helpers/capture-logger';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { obliterateQueue, TEST_REDIS_URL } from '../../helpers/redis';
import { attributeText, captureTraces, isAncestor } from '../../helpers/trace-capture';
import { TEST_AMQP_URL } from '../../helpers/test-services';

const AMQP_URL = TEST_AMQP_URL;
const PATRON_ID = 'patron-4711-secret-id';
const ROUTE_SECRET = 'route-signing-secret';
const API_KEY = 'sandbox-key';
const capture = captureTraces();
const telemetry = capture.tracing.telemetry;

/** A real HTTP receiver on port 0 that keeps the headers of what it accepts. */
async function startReceiver(): Promise<{
  url: string;
  seen: http.IncomingHttpHeaders[];
  server: Server;
}> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req.headers);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}/hook`, seen, server };
}

async function listen(listener: ListenerUnderTest): Promise<{ server: Server; url: string }> {
  const server = listener.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${String(port)}/webhooks` };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const traceparentOf = (span: ReadableSpan): string =>
  `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

afterAll(() => capture.close());

describe('one trace per event', () => {
  it('tracing is on in these tests (an exporter was given)', () => {
    expect(capture.tracing.enabled).toBe(true);
    expect(telemetry).toBeDefined();
  });

  describe('a LOAN routed to HTTP and AMQP', () => {
    let dir: string;
    let listener: ListenerUnderTest;
    let served: { server: Server; url: string };
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let rabbit: Connection;
    let exchange: string;
    let mqQueue: string;
    let connection: ReturnType<typeof openWorkerConnection>;
    let worker: WorkerProcess;

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-trace-'));
      listener = listenerUnderTest(telemetry === undefined ? {} : { telemetry });
      served = await listen(listener);
      receiver = await startReceiver();
      rabbit = new Connection(AMQP_URL);
      exchange = `test-trace-${randomUUID().slice(0, 8)}`;
      await rabbit.exchangeDeclare({ exchange, type: 'topic', durable: false });
      ({ queue: mqQueue } = await rabbit.queueDeclare({ exclusive: false, autoDelete: false }));
      await rabbit.queueBind({ queue: mqQueue, exchange, routingKey: '#' });
      const routesFile = join(dir, 'routes.yaml');
      await writeFile(
        routesFile,
        'routes:\n' +
          `  - name: loans-http\n    to: { http: { url: "${receiver.url}", secret: "${ROUTE_SECRET}" } }\n` +
          `  - name: loans-amqp\n    to: { amqp: { url: "${AMQP_URL}", exchange: "${exchange}", routingKey: "{action}" } }\n`,
      );
      const log = captureLogger();
      connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
      worker = createWorkerProcess({
        connection,
        config: WorkerConfig.parse({
          REDIS_URL: TEST_REDIS_URL,
          QUEUE_NAME: listener.queueName,
          SVC_BASE_URL: 'http://127.0.0.1:9',
          SVC_API_KEY: API_KEY,
          RECORDS_DIR: join(dir, 'records'),
          ROUTES_FILE: routesFile,
        }),
        logger: log.logger,
        env: {},
        ...(telemetry === undefined ? {} : { telemetry }),
      });
    });

    afterEach(async () => {
      await worker.close();
      await closeRedis(connection);
      await closeServer(served.server);
      await closeServer(receiver.server);
      await listener.close();
      for (const route of ['loans-http', 'loans-amqp']) {
        await obliterateQueue(routeQueueName(listener.queueName, route));
      }
      await rabbit.queueDelete({ queue: mqQueue }).catch(() => undefined);
      await rabbit.exchangeDelete({ exchange }).catch(() => undefined);
      await rabbit.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('ties the POST, the worker run and both deliveries into one trace, and the consumers continue it', async () => {
      const id = String(randomInt(1, 2 ** 47));
      const body = JSON.stringify({
        id,
        action: 'LOAN',
        event: { value: 'LOAN_CREATED' },
        time: '2024-11-06T10:15:30Z',
        institution: { value: '01ABC_INST' },
        item_loan: { loan_id: `L${id}`, user_id: PATRON_ID },
      });
      const signature = signWebhookBody(TEST_SECRET, body);
      const answer = await fetch(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-signature': signature },
        body,
      });
      expect(answer.status).toBe(200);
      await eventually(
        () => capture.spans().some((span) => span.name === 'enqueue loan'),
        'enqueue',
        30_000,
      );
      const enqueue = capture.one('enqueue loan');
      const traceId = enqueue.spanContext().traceId;
      await eventually(
        () => capture.complete(traceId, ['event loan', 'deliver loans-http', 'deliver loans-amqp']),
        'the whole trace',
        30_000,
      );
      const message = await rabbit.basicGet({ queue: mqQueue, noAck: true });
      const spans = capture.trace(traceId);
      const run = capture.one('event loan', traceId);
      const deliverHttp = capture.one('deliver loans-http', traceId);
      const deliverAmqp = capture.one('deliver loans-amqp', traceId);
      const eventIds = { 'svcws.event.id': id, 'svcws.event.action': 'loan' };
      expect(enqueue.attributes).toMatchObject({ ...eventIds, 'svcws.institution': '01ABC_INST' });
      expect(run.attributes).toMatchObject({
        ...eventIds,
        'svcws.institution': '01ABC_INST',
        'svcws.attempt': 1,
      });
      // Listener → BullMQ add → BullMQ process (the worker) → the run → fan-out → each delivery.
      expect(isAncestor(spans, enqueue, run)).toBe(true);
      for (const [span, route, kind] of [
        [deliverHttp, 'loans-http', 'http'],
        [deliverAmqp, 'loans-amqp', 'amqp'],
      ] as const) {
        expect(span.attributes).toMatchObject({
          ...eventIds,
          'svcws.route': route,
          'svcws.attempt': 1,
          'svcws.destination.kind': kind,
        });
        expect(isAncestor(spans, run, span)).toBe(true);
        // The first attempt is made inline, in the run itself: no route job, so nothing to link.
        expect(span.links).toEqual([]);
      }
      // The consumers get the delivery span's context.
      expect(receiver.seen[0]?.traceparent).toBe(traceparentOf(deliverHttp));
      expect(message?.headers?.traceparent).toBe(traceparentOf(deliverAmqp));
      // No patron data, no secret in any attribute of any span of the process.
      const text = attributeText(capture.spans());
      for (const forbidden of [PATRON_ID, TEST_SECRET, ROUTE_SECRET, signature, API_KEY]) {
        expect(text).not.toContain(forbidden);
      }
    });
  });

  describe('a job_end against the sandbox', () => {
    let running: RunningSandbox;
    let listener: ListenerUnderTest;
    let served: { server: Server; url: string };
    let connection: ReturnType<typeof openWorkerConnection>;
    let worker: WorkerProcess;
    let recordsDir: string;

    afterEach(async () => {
      await worker.close();
      await closeRedis(connection);
      await closeServer(served.server);
      await listener.close();
      await running.close();
      await rm(recordsDir, { recursive: true, force: true });
    });

    it('traces the run and the records download under the POST', async () => {
      running = await createSandbox({
        logger: createLogger({ level: 'silent', name: 'sandbox' }),
        config: { SANDBOX_JOB_DURATION_MS: 0 },
      }).start(0);
      listener = listenerUnderTest(telemetry === undefined ? {} : { telemetry });
      served = await listen(listener);
      recordsDir = await mkdtemp(join(tmpdir(), 'svc-trace-records-'));
      const log = captureLogger();
      connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
      worker = createWorkerProcess({
        connection,
        config: WorkerConfig.parse({
          REDIS_URL: TEST_REDIS_URL,
          QUEUE_NAME: listener.queueName,
          SVC_BASE_URL: running.url,
          SVC_API_KEY: API_KEY,
          RECORDS_DIR: recordsDir,
        }),
        logger: log.logger,
        env: {},
        ...(telemetry === undefined ? {} : { telemetry }),
      });
      const admin = (path: string, body: unknown): Promise<Response> =>
        fetch(`${running.url}/sandbox${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await admin('/webhooks', { url: served.url, secret: TEST_SECRET })).status).toBe(201);
      await admin('/jobs/S7781/run', { records: 20, duration_ms: 0 });
      await eventually(
        () => capture.spans().some((span) => span.name === 'enqueue job_end'),
        'enqueue',
        30_000,
      );
      const enqueue = capture.one('enqueue job_end');
      const traceId = enqueue.spanContext().traceId;
      await eventually(
        () => capture.complete(traceId, ['event job_end', 'download records']),
        'the whole trace',
        30_000,
      );
      const run = capture.one('event job_end', traceId);
      const spans = capture.trace(traceId);
      const download = capture.one('download records', traceId);
      expect(isAncestor(spans, enqueue, run)).toBe(true);
      expect(isAncestor(spans, run, download)).toBe(true);
      expect(run.attributes).toMatchObject({
        'svcws.event.action': 'job_end',
        'svcws.institution': '01SVC_INST',
        'svcws.attempt': 1,
      });
      expect(download.attributes).toMatchObject({
        'svcws.event.id': run.attributes['svcws.event.id'],
        'svcws.line_type': 'TOTAL_RECORDS_IMPORTED',
      });
      // The API client's calls are spans of node:http's instrumentation, which hooks Node's
      // require and so sees nothing under jest's: otlp-export.test.ts checks them in a real worker.
      expect(attributeText(capture.spans())).not.toContain(API_KEY);
    });
  });
});
