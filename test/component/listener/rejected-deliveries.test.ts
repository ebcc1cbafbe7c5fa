import request from 'supertest';
import { Redis } from 'ioredis';
import { createApp } from '../../../src/http/create-app';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { createRejectedStore } from '../../../src/events/rejected-store';
import type { EnqueueEvent } from '../../../src/events/enqueue-event';
import { createWebMetrics } from '../../../src/metrics/web-metrics';
import { createEventQueue } from '../../../src/events/create-event-queue';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import {
  listenerUnderTest,
  TEST_PREVIOUS_SECRET,
  TEST_SECRET,
} from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { captureLogger } from '../../helpers/capture-logger';
import { rawPost } from '../../helpers/raw-post';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

// `time` missing: refused (spec §6.2 names it part of every body) and so kept.
const NO_TIME = '{"id":"evt-no-time","action":"JOB_END"}';

function post(
  app: ListenerUnderTest['app'],
  body: string | Buffer,
  contentType = 'application/json',
) {
  return request(app)
    .post('/webhooks')
    .set('Content-Type', contentType)
    .set('X-Svc-Signature', signWebhookBody(TEST_SECRET, body))
    .send(body);
}

describe('signed deliveries that cannot become an event', () => {
  let listener: ListenerUnderTest;
  beforeEach(() => {
    listener = listenerUnderTest({ previousSecret: TEST_PREVIOUS_SECRET });
  });
  afterEach(async () => {
    await listener.close();
  });

  it('are kept with their bytes, content type, reason, status and event id before the 400', async () => {
    const res = await post(listener.app, NO_TIME);
    expect(res.status).toBe(400);
    const [entry, ...more] = await listener.rejected.list();
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      status: 400,
      contentType: 'application/json',
      bytes: NO_TIME.length,
      eventId: 'evt-no-time',
      reason: res.body.message,
    });
    expect(Date.parse(entry?.receivedAt ?? '')).toBeGreaterThan(Date.now() - 10000);
    const stored = await listener.rejected.get(entry?.ref ?? '');
    expect(stored?.body.toString('utf8')).toBe(NO_TIME);
    expect(await listener.events.queue.count()).toBe(0);
  });

  it('keeps bytes that are not UTF-8 exactly, and a refused media type', async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const res = await rawPost(listener.app, '/webhooks', bytes, {
      'Content-Type': 'application/json',
      'X-Svc-Signature': signWebhookBody(TEST_SECRET, bytes),
    });
    expect(res.status).toBe(400);
    expect((await post(listener.app, NO_TIME, 'text/plain')).status).toBe(415);
    const entries = await listener.rejected.list();
    expect(entries.map((entry) => entry.status)).toEqual([415, 400]);
    expect((await listener.rejected.get(entries[1]?.ref ?? ''))?.body).toEqual(bytes);
  });

  it('writes the ref, never the body, to the delivery log', async () => {
    await post(listener.app, NO_TIME);
    const [entry] = await listener.rejected.list();
    const [line] = listener.log.lines().filter((l) => l.msg === 'delivery');
    expect(line).toMatchObject({ httpStatus: 400, rejectedRef: entry?.ref, signedWith: 'current' });
    expect(listener.log.text()).not.toContain('2024-11-06T10:15:30"');
  });

  it('keeps nothing of an unsigned or wrongly signed delivery', async () => {
    const res = await request(listener.app)
      .post('/webhooks')
      .set('Content-Type', 'application/json')
      .set('X-Svc-Signature', signWebhookBody('another-secret-0123456789', NO_TIME))
      .send(NO_TIME);
    expect(res.status).toBe(401);
    expect(await listener.rejected.list()).toEqual([]);
  });

  it('is one entry per body when the same bytes come again', async () => {
    await post(listener.app, NO_TIME);
    await post(listener.app, NO_TIME);
    expect(await listener.rejected.list()).toHaveLength(1);
  });

  it('says in the delivery log which secret matched', async () => {
    const good = '{"id":"rot-1","action":"job_end","time":"2024-11-06T10:15:30Z"}';
    await request(listener.app)
      .post('/webhooks')
      .set('Content-Type', 'application/json')
      .set('X-Svc-Signature', signWebhookBody(TEST_PREVIOUS_SECRET, good))
      .send(good);
    const [line] = listener.log.lines().filter((l) => l.msg === 'delivery');
    expect(line).toMatchObject({ httpStatus: 200, signedWith: 'previous' });
  });
});

describe('the rejected store bounds', () => {
  const queueName = uniqueQueueName('rejected-bounds');
  const redis = new Redis(TEST_REDIS_URL);
  afterAll(async () => {
    await obliterateQueue(queueName);
    redis.disconnect();
  });

  it('keeps at most REJECTED_MAX_COUNT entries, the newest, and drops those older than the age', async () => {
    const now = new Date('2026-01-10T12:00:00Z');
    const store = createRejectedStore({
      redis,
      queueName,
      maxCount: 3,
      maxAgeHours: 2,
      now: () => now,
    });
    const keep = (n: number, minutesAgo: number) =>
      store.keep({
        body: Buffer.from(`body ${String(n)}`),
        contentType: undefined,
        reason: `reason ${String(n)}`,
        status: 400,
        receivedAt: new Date(now.getTime() - minutesAgo * 60000),
        requestId: `r${String(n)}`,
      });
    await keep(0, 180); // older than 2 h
    for (const n of [1, 2, 3, 4]) await keep(n, 10 - n);
    const reasons = (await store.list()).map((entry) => entry.reason);
    expect(reasons).toEqual(['reason 4', 'reason 3', 'reason 2']);
    expect((await store.list(2)).map((entry) => entry.reason)).toEqual(['reason 4', 'reason 3']);
    expect(await redis.exists(`${queueName}:rejected:entry:${'x'}`)).toBe(0);
    const keys = await redis.keys(`${queueName}:rejected:entry:*`);
    expect(keys).toHaveLength(3);
    expect(await redis.pttl(keys[0] ?? '')).toBeGreaterThan(0);
  });
});

describe('what a refused delivery is answered when something else fails', () => {
  const body = '{"id":"x-1","action":"job_end","time":"2024-11-06T10:15:30Z"}';

  function appWith(enqueue: EnqueueEvent, redisUrl = TEST_REDIS_URL) {
    const queueName = uniqueQueueName('rejected-status');
    const connection = openProducerConnection(redisUrl);
    const events = createEventQueue({ connection, queueName });
    const log = captureLogger();
    const metrics = createWebMetrics({ queue: events.queue, defaultMetrics: false });
    const rejected = createRejectedStore({
      redis: connection,
      queueName,
      maxCount: 10,
      maxAgeHours: 1,
    });
    const app = createApp({
      config: { WEBHOOK_PATH: '/webhooks', WEBHOOK_SECRET: TEST_SECRET, BODY_LIMIT: '1mb' },
      logger: log.logger,
      enqueue,
      rejected,
      checkReady: events.ping,
      observer: metrics.observer,
      extraRoutes: [metrics.router],
    });
    const close = async () => {
      await events.close();
      await closeRedis(connection);
      await obliterateQueue(queueName);
    };
    return { app, log, rejected, close };
  }

  it('a defect of ours is a 500 logged as what it is, and the delivery is kept', async () => {
    const t = appWith(async () => {
      throw new TypeError('cannot read properties of undefined (reading "x")');
    });
    try {
      const res = await post(t.app, body);
      expect(res.status).toBe(500);
      expect(res.body.error).toBe('internal_error');
      const failure = t.log.lines().find((l) => l.msg === 'event not queued: internal error');
      expect(failure?.err).toMatchObject({ type: 'TypeError' });
      expect(await t.rejected.list()).toHaveLength(1);
      const metrics = await request(t.app).get('/metrics');
      expect(metrics.text).toContain(
        'svcws_webhook_rejected_total{reason="internal_error",kept="true"} 1',
      );
    } finally {
      await t.close();
    }
  });

  it('a queue that does not answer is a 503 queue_unavailable, and nothing is kept', async () => {
    const t = appWith(async () => {
      throw new Error('Connection is closed.');
    });
    try {
      const res = await post(t.app, body);
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('queue_unavailable');
      expect(await t.rejected.list()).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('a refusal that cannot be kept (Redis down) is a 503, so the sender retries', async () => {
    const t = appWith(async () => ({ jobId: 'never', duplicate: false }), 'redis://127.0.0.1:1');
    try {
      const res = await post(t.app, NO_TIME).timeout(4000);
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('queue_unavailable');
      const metrics = await request(t.app).get('/metrics');
      expect(metrics.text).toMatch(
        /svcws_webhook_rejected_total\{reason="invalid_event",kept="false"\} 1/,
      );
    } finally {
      await t.close();
    }
  });
});
