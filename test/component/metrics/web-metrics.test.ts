import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import express from 'express';
import type { Express } from 'express';
import { createApp } from '../../../src/http/create-app';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { createEventQueue } from '../../../src/events/create-event-queue';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import type { EventQueue } from '../../../src/events/create-event-queue';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { createRejectedStore } from '../../../src/events/rejected-store';
import { createWebMetrics } from '../../../src/metrics/web-metrics';
import { rawPost } from '../../helpers/raw-post';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

const SECRET = 'metrics-test-secret';
const fixture = (name: string): Buffer =>
  readFileSync(path.join(__dirname, '../../fixtures/events', name));

function metricsApp(redisUrl: string, queueName: string): { app: Express; events: EventQueue } {
  const events = createEventQueue({ connection: openProducerConnection(redisUrl), queueName });
  const metrics = createWebMetrics({ queue: events.queue, defaultMetrics: false });
  const app = createApp({
    config: { WEBHOOK_PATH: '/webhooks', WEBHOOK_SECRET: SECRET, BODY_LIMIT: '1mb' },
    logger: captureLogger().logger,
    enqueue: metrics.timeEnqueue(
      createEventEnqueuer({ queue: events.queue, dedupWindowHours: 1, attempts: 2 }),
    ),
    rejected: createRejectedStore({
      redis: events.connection,
      queueName,
      maxCount: 10,
      maxAgeHours: 1,
    }),
    checkReady: events.ping,
    observer: metrics.observer,
    extraRoutes: [metrics.router],
  });
  return { app, events };
}

async function deliver(app: Express, body: Buffer, signature: string): Promise<number> {
  const answer = await rawPost(app, '/webhooks', body, {
    'Content-Type': 'application/json',
    'X-Svc-Signature': signature,
  });
  return answer.status;
}

describe('GET /metrics on the listener', () => {
  let queueName: string;
  let events: EventQueue;
  let app: Express;

  beforeEach(() => {
    queueName = uniqueQueueName('web-metrics');
    ({ app, events } = metricsApp(TEST_REDIS_URL, queueName));
  });

  afterEach(async () => {
    await events.close();
    await closeRedis(events.connection);
    await obliterateQueue(queueName);
  });

  it('counts deliveries by outcome and status, signature failures and enqueue latency', async () => {
    const body = fixture('job-end.json');
    const good = signWebhookBody(SECRET, body);
    const wrong = signWebhookBody('not-the-secret', body);

    const statuses = [
      await deliver(app, body, good),
      await deliver(app, body, good),
      await deliver(app, body, wrong),
      await deliver(app, Buffer.from('{"id":'), signWebhookBody(SECRET, '{"id":')),
    ];
    const res = await request(app).get('/metrics');

    expect(statuses).toEqual([200, 200, 401, 400]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toContain('svcws_webhook_deliveries_total{outcome="queued",status="200"} 1');
    expect(res.text).toContain(
      'svcws_webhook_deliveries_total{outcome="duplicate",status="200"} 1',
    );
    expect(res.text).toContain(
      'svcws_webhook_deliveries_total{outcome="bad_signature",status="401"} 1',
    );
    expect(res.text).toMatch(/svcws_webhook_deliveries_total\{outcome="[a-z_]+",status="400"\} 1/);
    expect(res.text).toContain('svcws_webhook_signature_failures_total 1');
    expect(res.text).toContain('svcws_webhook_enqueue_duration_seconds_count{result="queued"} 1');
    expect(res.text).toContain(
      'svcws_webhook_enqueue_duration_seconds_count{result="duplicate"} 1',
    );
    expect(res.text).toContain(
      'svcws_webhook_delivery_duration_seconds_count{outcome="bad_signature"} 1',
    );
  });

  it('exports the queue depth by state from Redis at scrape time', async () => {
    const before = await request(app).get('/metrics');
    const body = fixture('loan-created.json');
    await deliver(app, body, signWebhookBody(SECRET, body));
    const minimal = fixture('job-end-minimal.json');
    await deliver(app, minimal, signWebhookBody(SECRET, minimal));
    const after = await request(app).get('/metrics');

    expect(before.text).toContain(`bullmq_job_count{queue="${queueName}", state="waiting"} 0`);
    expect(after.text).toContain(`bullmq_job_count{queue="${queueName}", state="waiting"} 2`);
    expect(after.text).toContain(`bullmq_job_count{queue="${queueName}", state="failed"} 0`);
    expect(after.text).toContain('svcws_queue_metrics_up 1');
  });

  it('stamps the time of the last accepted event by institution and action, not of a refused one', async () => {
    const before = Date.now() / 1000;
    const loan = fixture('loan-created.json');
    await deliver(app, loan, signWebhookBody(SECRET, loan));
    const jobEnd = fixture('job-end.json');
    await deliver(app, jobEnd, signWebhookBody('not-the-secret', jobEnd));
    const res = await request(app).get('/metrics');

    const stamps = [
      ...res.text.matchAll(/^svcws_webhook_last_event_timestamp_seconds\{(.*)\} (\S+)$/gm),
    ].map(([, labels, value]) => ({ labels, value: Number(value) }));
    expect(stamps.map((stamp) => stamp.labels)).toEqual(['institution="01SVC_INST",action="loan"']);
    expect(stamps[0]?.value).toBeGreaterThanOrEqual(Math.floor(before));
    expect(stamps[0]?.value).toBeLessThanOrEqual(Date.now() / 1000);
  });

  it('exports the age of the oldest waiting event of the queue at scrape time', async () => {
    const empty = await request(app).get('/metrics');
    const body = fixture('loan-created.json');
    await deliver(app, body, signWebhookBody(SECRET, body));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await request(app).get('/metrics');

    expect(empty.text).toContain(`svcws_queue_oldest_waiting_seconds{queue="${queueName}"} 0\n`);
    const age = new RegExp(
      `svcws_queue_oldest_waiting_seconds\\{queue="${queueName}"\\} (\\S+)`,
    ).exec(after.text)?.[1];
    expect(Number(age)).toBeGreaterThanOrEqual(1);
    expect(Number(age)).toBeLessThan(30);
  });
});

describe('GET /metrics while Redis does not answer', () => {
  it('still answers 200 with the process metrics and says the queue could not be read', async () => {
    const { app, events } = metricsApp('redis://127.0.0.1:1', uniqueQueueName('web-metrics-down'));
    try {
      const res = await request(app).get('/metrics');

      expect(res.status).toBe(200);
      expect(res.text).toContain('svcws_queue_metrics_up 0');
      expect(res.text).not.toContain('bullmq_job_count');
      expect(res.text).not.toMatch(/^svcws_queue_oldest_waiting_seconds\{/m);
    } finally {
      await events.close();
      await closeRedis(events.connection);
    }
  });
});

describe('GET /metrics behind METRICS_TOKEN', () => {
  it('answers 401 without the bearer token or with another, 200 with it', async () => {
    const queueName = uniqueQueueName('web-metrics-token');
    const connection = openProducerConnection(TEST_REDIS_URL);
    const events = createEventQueue({ connection, queueName });
    const metrics = createWebMetrics({
      queue: events.queue,
      defaultMetrics: false,
      token: 'metrics-token-0123456789',
    });
    const app = express().use(metrics.router);
    try {
      const none = await request(app).get('/metrics');
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      const wrong = await request(app).get('/metrics').set('Authorization', 'Bearer nope');
      expect(wrong.status).toBe(401);
      const right = await request(app)
        .get('/metrics')
        .set('Authorization', 'Bearer metrics-token-0123456789');
      expect(right.status).toBe(200);
      expect(right.text).toContain('svcws_webhook_deliveries_total');
    } finally {
      await events.close();
      await closeRedis(connection);
      await obliterateQueue(queueName);
    }
  });
});
