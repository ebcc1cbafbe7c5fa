import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { eventually } from '../../component/routes/support/route-events';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../../helpers/history-database';
import { startOtlpSink } from '../../helpers/otlp-sink';
import type { OtlpSink, SunkSpan } from '../../helpers/otlp-sink';
import { createTestSchema, TEST_POSTGRES_URL } from '../../helpers/postgres';
import { obliterateQueue, TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

const WEBHOOK_SECRET = 'trace-webhook-secret-0123456789';
const ROUTE_SECRET = 'trace-route-secret-0123456789';
const API_KEY = 'trace-api-key-0123456789';
const HISTORY_KEY = 'trace-history-key-0123456789abcdef0123456789';
const ROUTES = ['to-http', 'to-postgres'] as const;

/** The patron kinds whose traces are scanned, by fixture (test/fixtures/events). */
const FIXTURES = {
  loan: 'loan-created.json',
  user: 'user-updated.json',
  request: 'request-created.json',
  notification: 'notification.json',
} as const;

/** A key on a value's path that makes it a person's (or the event's free text). */
const PERSONAL_KEY =
  /user|requester|receiver|recipient|^(first_|last_|middle_|full_)?name$|email|phone|address|pin|identifier|note|comment|message|title|contact/i;
/** Leaves that are codes, flags or times, not a person: the same in every library's events. */
const CODE_LEAF = /^(desc|segment_type|status|preferred|channel|letter_code)$|_(type|date|time)$/;

/**
 * Every string of the fixture that is a person's or free text: under a personal key below the
 * envelope's (`webhook_user` names the kind, not a person), not a code (an identifier's `value`
 * is one, a code's `value` is not).
 */
function personalValues(value: unknown, path: readonly string[] = []): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => personalValues(item, path));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => personalValues(item, [...path, key]));
  }
  if (typeof value !== 'string' || value.trim().length < 4) return [];
  const leaf = path.at(-1) ?? '';
  if (!path.slice(1).some((key) => PERSONAL_KEY.test(key)) || CODE_LEAF.test(leaf)) return [];
  if (leaf === 'value' && !/identifier/.test(path.at(-2) ?? '')) return [];
  return [value.trim()];
}

function fixtureText(file: string): string {
  return readFileSync(join(__dirname, '../../fixtures/events', file), 'utf8');
}

/** A real HTTP destination on port 0 that counts what it accepts and keeps the headers. */
async function startReceiver(): Promise<{ url: string; seen: string[]; server: Server }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(JSON.stringify(req.headers));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}/hook`, seen, server };
}

/** Everything a span says: its name, status, attributes and events. */
function spanText(span: SunkSpan): string {
  const parts = [span.name, span.statusMessage, ...Object.values(span.attributes)];
  for (const event of span.events) parts.push(event.name, ...Object.values(event.attributes));
  return parts.join('\n');
}

async function stop(child: ChildWorker): Promise<void> {
  if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGTERM');
  await child.exited();
}

describe('traces of patron events, listener and worker exporting over OTLP', () => {
  let sink: OtlpSink;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let destination: Awaited<ReturnType<typeof createTestSchema>>;
  let dir: string;
  let listener: ChildWorker;
  let worker: ChildWorker;
  const queueName = uniqueQueueName('trace-privacy');
  const historySchema = uniqueSchema('trace');

  beforeAll(async () => {
    sink = await startOtlpSink();
    receiver = await startReceiver();
    destination = await createTestSchema('trace_dest');
    dir = await mkdtemp(join(tmpdir(), 'svc-trace-privacy-'));
    const routesFile = join(dir, 'routes.yaml');
    await writeFile(
      routesFile,
      'routes:\n' +
        `  - name: to-http\n    to: { http: { url: "${receiver.url}", secret: "${ROUTE_SECRET}" } }\n` +
        `  - name: to-postgres\n    to: { postgres: { url: "${TEST_POSTGRES_URL}", table: "${destination.schema}.events" } }\n`,
    );
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
    };
    listener = spawnWorker('src/bin/web.ts', { ...otel, PORT: '0', WEBHOOK_SECRET });
    worker = spawnWorker('src/bin/worker.ts', {
      ...otel,
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: API_KEY,
      RECORDS_DIR: join(dir, 'records'),
      WORKER_METRICS_PORT: '0',
      ROUTES_FILE: routesFile,
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY,
      HISTORY_SCHEMA: historySchema,
    });
    await worker.waitForLine((line) => line.msg === 'worker ready');
  });

  afterAll(async () => {
    await stop(listener);
    await stop(worker);
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
    await sink.close();
    for (const name of [queueName, ...ROUTES.map((route) => routeQueueName(queueName, route))]) {
      await obliterateQueue(name);
    }
    const redis = new Redis(TEST_REDIS_URL);
    await redis.del(`${queueName}:history`);
    redis.disconnect();
    await destination.drop();
    await dropSchema(historySchema);
    await rm(dir, { recursive: true, force: true });
  });

  it('carries no personal value of LOAN, USER, REQUEST and NOTIFICATION fixtures, and no secret', async () => {
    const ready = await listener.waitForLine((line) => line.msg === 'listener ready');
    const url = `http://127.0.0.1:${String(ready.port)}/webhooks`;
    const signatures: string[] = [];
    for (const file of Object.values(FIXTURES)) {
      const body = fixtureText(file);
      const signature = signWebhookBody(WEBHOOK_SECRET, body);
      signatures.push(signature);
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-signature': signature },
        body,
      });
      expect(answer.status).toBe(200);
    }
    const kinds = Object.keys(FIXTURES);
    const exported = (name: string): boolean => sink.spans().some((span) => span.name === name);
    await eventually(
      () =>
        receiver.seen.length === kinds.length &&
        kinds.every((kind) => exported(`enqueue ${kind}`) && exported(`event ${kind}`)) &&
        ROUTES.every((route) => exported(`deliver ${route}`)),
      'every event traced and delivered',
      60_000,
    );
    // The last spans of the runs (BullMQ's own, ended after ours) reach the sink a batch later.
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const spans = sink.spans();
    const services = new Set(spans.map((span) => span.service));
    expect(services).toEqual(new Set(['svcws-listener', 'svcws-worker']));
    // The instrumentations were on: Redis commands and PostgreSQL statements were traced.
    expect(spans.some((span) => span.attributes['db.system.name'] === 'redis')).toBe(true);
    expect(spans.some((span) => span.attributes['db.system.name'] === 'postgresql')).toBe(true);
    const text = spans.map(spanText).join('\n');
    const personal = Object.values(FIXTURES).flatMap((file) =>
      personalValues(JSON.parse(fixtureText(file))),
    );
    // The derivation finds the patrons of all four kinds (a guard against a rule that finds none).
    expect(personal).toEqual(
      expect.arrayContaining(['u-42', 'S1004217', 'Okafor', 'amara@example.org', '2100042']),
    );
    const secrets = [WEBHOOK_SECRET, ROUTE_SECRET, API_KEY, HISTORY_KEY, ...signatures];
    // As written, or as a JSON string holds it (a job's data is JSON: quotes and newlines escaped).
    const found = [...new Set([...personal, ...secrets])].filter(
      (value) => text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)),
    );
    expect(found).toEqual([]);
  });
});
