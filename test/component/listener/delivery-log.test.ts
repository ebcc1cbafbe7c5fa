import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';

const body = readFileSync(path.join(__dirname, '../../fixtures/events/job-end.json'), 'utf8');

describe('the delivery log', () => {
  let listener: ListenerUnderTest;
  beforeEach(() => {
    listener = listenerUnderTest();
  });
  afterEach(async () => {
    await listener.close();
  });

  it('writes one line per delivery with event id, action, outcome, httpStatus and duration', async () => {
    const signature = signWebhookBody(TEST_SECRET, body);
    await request(listener.app)
      .post('/webhooks')
      .set('Content-Type', 'application/json')
      .set('X-Svc-Signature', signature)
      .send(body);
    const deliveries = listener.log.lines().filter((line) => line.msg === 'delivery');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      level: 30,
      eventId: '3219421620000561',
      action: 'job_end',
      outcome: 'queued',
      httpStatus: 200,
      format: 'json',
      queueJobId: 'evt-3219421620000561',
    });
    expect(typeof deliveries[0]?.durationMs).toBe('number');
  });

  it('never writes the signature, the secret or the raw body at info', async () => {
    const signature = signWebhookBody(TEST_SECRET, body);
    await request(listener.app)
      .post('/webhooks')
      .set('X-Svc-Signature', signature)
      .set('Content-Type', 'application/json')
      .send(body);
    await request(listener.app)
      .post('/webhooks')
      .set('X-Svc-Signature', 'AAAA')
      .set('Content-Type', 'application/json')
      .send(body);
    const text = listener.log.text();
    expect(text).not.toContain(signature);
    expect(text).not.toContain(TEST_SECRET);
    expect(text).not.toContain('Import MARC records - 11/06/2024');
    const rejected = listener.log.lines().filter((line) => line.outcome === 'bad_signature');
    expect(rejected).toEqual([expect.objectContaining({ httpStatus: 401, level: 40 })]);
  });

  it('logs a body-limit rejection as a delivery too', async () => {
    const small = listenerUnderTest({ bodyLimit: '1kb' });
    const big = 'x'.repeat(5000);
    try {
      // Signed (the form of the header is checked first; an unsigned body is a 401 unread).
      await request(small.app)
        .post('/webhooks')
        .set('Content-Type', 'application/json')
        .set('X-Svc-Signature', signWebhookBody(TEST_SECRET, big))
        .send(big);
      expect(small.log.lines().filter((line) => line.msg === 'delivery')).toEqual([
        expect.objectContaining({ outcome: 'body_too_large', httpStatus: 413 }),
      ]);
    } finally {
      await small.close();
    }
  });
});
