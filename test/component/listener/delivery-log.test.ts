import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { loanEventJson } from '../../helpers/loan-event';

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

  it('names the event’s institution and code on the line (no INSTITUTIONS_FILE: the event’s own)', async () => {
    const loan = loanEventJson('7301', '01ABC_INST');
    await request(listener.app)
      .post('/webhooks')
      .set('Content-Type', 'application/json')
      .set('X-Svc-Signature', signWebhookBody(TEST_SECRET, loan))
      .send(loan);

    expect(listener.log.lines().filter((line) => line.msg === 'delivery')).toEqual([
      expect.objectContaining({
        institution: '01ABC_INST',
        action: 'loan',
        event: 'LOAN_CREATED',
        eventId: '7301',
        outcome: 'queued',
        httpStatus: 200,
      }),
    ]);
  });

  it('writes a delivery line for a POST to a path with no route (404) or a method the webhook path does not take (405)', async () => {
    await request(listener.app).post('/webhook').set('X-Request-Id', 'wrong-path-1').send('{}');
    await request(listener.app).put('/webhooks').set('X-Request-Id', 'wrong-method-1').send('{}');
    // A probe's GET is no delivery: no line.
    await request(listener.app).get('/nothing-here');

    const deliveries = listener.log.lines().filter((line) => line.msg === 'delivery');
    expect(deliveries).toEqual([
      expect.objectContaining({
        level: 40,
        requestId: 'wrong-path-1',
        method: 'POST',
        path: '/webhook',
        outcome: 'not_found',
        httpStatus: 404,
      }),
      expect.objectContaining({
        level: 40,
        requestId: 'wrong-method-1',
        method: 'PUT',
        path: '/webhooks',
        outcome: 'method_not_allowed',
        httpStatus: 405,
      }),
    ]);
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
