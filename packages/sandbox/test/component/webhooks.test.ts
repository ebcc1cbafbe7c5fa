import { createHmac, timingSafeEqual } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { startSandbox } from '../../src/testing/start-sandbox';
import type { SandboxUnderTest } from '../../src/testing/start-sandbox';
import { waitFor } from '../support/wait-for';
import { startReceiver } from './webhook-receiver';
import type { ReceivedPost, WebhookReceiver } from './webhook-receiver';

const SECRET = 'webhook-test-secret';

/** The listener's check (spec §6.2 rule 3): HMAC over the bytes received, compared in constant time. */
function signatureHolds(post: ReceivedPost, secret: string): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(post.body).digest('base64'));
  const given = Buffer.from(String(post.headers['x-svc-signature']));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

interface DeliveryRow {
  event_id: string;
  attempt: number;
  status: number | null;
  outcome: string;
}

describe('sandbox webhooks (spec §6)', () => {
  let sut: SandboxUnderTest;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await sut.close();
    await receiver.close();
  });

  const register = (format: 'json' | 'xml', events?: string[]) =>
    sut.admin('POST', '/webhooks', {
      url: receiver.url,
      secret: SECRET,
      format,
      ...(events ? { events } : {}),
    });
  const deliveries = async (): Promise<DeliveryRow[]> =>
    (await sut.admin('GET', '/deliveries')).json.deliveries as DeliveryRow[];

  it('registers a listener that echoes the challenge, and never shows the secret', async () => {
    receiver = await startReceiver();
    sut = await startSandbox();
    const reply = await register('json');
    expect(reply.status).toBe(201);
    expect(reply.text).not.toContain(SECRET);
    const list = await sut.admin('GET', '/webhooks');
    expect(list.json.profiles).toEqual([
      expect.objectContaining({ url: receiver.url, format: 'json' }),
    ]);
  });

  it.each(['wrong', 'status500'] as const)(
    'refuses a listener whose challenge answer is %s with 422',
    async (challenge) => {
      receiver = await startReceiver({ challenge });
      sut = await startSandbox();
      const reply = await register('json');
      expect(reply.status).toBe(422);
      expect(reply.json.error).toMatch(/challenge/);
      expect((await sut.admin('GET', '/webhooks')).json.profiles).toEqual([]);
    },
  );

  it('posts a signed JSON job_end when a run ends, shaped like the fixture', async () => {
    receiver = await startReceiver();
    sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 0, SANDBOX_RECORD_COUNT: 12 });
    await register('json');
    await sut.api('POST', '/conf/jobs/S7781?op=run', { body: '{"id":"S7781"}' });
    const post = await waitFor(() => receiver.posts[0]);
    expect(post.headers['content-type']).toBe('application/json');
    expect(signatureHolds(post, SECRET)).toBe(true);
    expect(signatureHolds(post, 'another-secret')).toBe(false);
    const event = JSON.parse(post.body.toString('utf8')) as Record<string, unknown>;
    expect(event).toMatchObject({
      action: 'JOB_END',
      institution: { value: '01SVC_INST' },
      job_instance: {
        status: { value: 'COMPLETED_SUCCESS' },
        job_info: { id: 'S7781', category: { value: 'IMPORT' } },
        counter: expect.arrayContaining([
          { type: expect.objectContaining({ value: 'TOTAL_RECORDS_IMPORTED' }), value: '12' },
        ]) as unknown,
      },
    });
    expect(event.id).toMatch(/^\d+$/);
    expect(Date.parse(String(event.time))).not.toBeNaN();
    const rows = await waitFor(async () =>
      (await deliveries()).length > 0 ? deliveries() : undefined,
    );
    expect(rows[0]).toMatchObject({
      event_id: event.id,
      attempt: 1,
      status: 200,
      outcome: 'delivered',
    });
  });

  it('posts a signed XML job_end with root <webhook> in the platform conventions', async () => {
    receiver = await startReceiver();
    sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 0 });
    await register('xml', ['JOB_END']);
    const run = await sut.admin('POST', '/jobs/S7782/run', { records: 10, duration_ms: 0 });
    const post = await waitFor(() => receiver.posts[0]);
    expect(post.headers['content-type']).toBe('application/xml');
    expect(signatureHolds(post, SECRET)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(
      post.body.toString('utf8'),
    ) as {
      webhook: {
        action: string;
        institution: { '@_desc': string };
        job_instance: { id: string; status: { '#text': string }; counters: { counter: unknown[] } };
      };
    };
    expect(parsed.webhook.action).toBe('JOB_END');
    expect(parsed.webhook.institution['@_desc']).toBe('Sandbox University Library');
    expect(parsed.webhook.job_instance.id).toBe((run.json.job_instance as { id: string }).id);
    expect(parsed.webhook.job_instance.status['#text']).toBe('COMPLETED_WARNINGS');
    expect(parsed.webhook.job_instance.counters.counter.length).toBeGreaterThan(1);
  });

  it('sends only the kinds a profile subscribed to', async () => {
    receiver = await startReceiver();
    sut = await startSandbox();
    await register('json', ['loan']);
    await sut.admin('POST', '/events', { kind: 'bib' });
    await sut.admin('POST', '/events', { kind: 'loan' });
    expect(receiver.posts).toHaveLength(1);
    expect(JSON.parse(receiver.posts[0]?.body.toString('utf8') ?? '{}')).toMatchObject({
      action: 'LOAN',
      event: { value: 'LOAN_CREATED' },
      item_loan: {},
    });
  });

  it("sends each kind with the platform's action and event code (the kind is the action)", async () => {
    receiver = await startReceiver();
    sut = await startSandbox();
    await register('json');
    for (const kind of ['loan', 'bib', 'user', 'request', 'item', 'notification']) {
      await sut.admin('POST', '/events', { kind });
    }
    const sent = receiver.posts.map((post) => {
      const body = JSON.parse(post.body.toString('utf8')) as {
        action: string;
        event?: { value: string };
      };
      return [body.action, body.event?.value];
    });
    expect(sent).toEqual([
      ['LOAN', 'LOAN_CREATED'],
      ['BIB', 'BIB_UPDATED'],
      ['USER', 'USER_UPDATED'],
      ['REQUEST', 'REQUEST_CREATED'],
      ['ITEM', 'ITEM_UPDATED'],
      ['NOTIFICATION', 'NOTIFICATION'],
    ]);
  });

  it('retries a 5xx on the scaled 1 h, 3 h, 6 h schedule, then gives up', async () => {
    receiver = await startReceiver({ statusFor: () => 503 });
    // 1 h × 0.00002 = 72 ms, then 216 ms and 432 ms.
    sut = await startSandbox({ SANDBOX_RETRY_SCALE: 0.00002 });
    await register('json');
    const fired = await sut.admin('POST', '/events', { kind: 'user' });
    const rows = await waitFor(async () => {
      const current = await deliveries();
      return current.some((row) => row.outcome === 'failed') ? current : undefined;
    });
    expect(rows.map((row) => [row.attempt, row.status, row.outcome])).toEqual([
      [1, 503, 'retry_scheduled'],
      [2, 503, 'retry_scheduled'],
      [3, 503, 'retry_scheduled'],
      [4, 503, 'failed'],
    ]);
    expect(new Set(receiver.posts.map((post) => post.body.toString('utf8'))).size).toBe(1);
    expect(rows.every((row) => row.event_id === (fired.json.event as { id: string }).id)).toBe(
      true,
    );
  });

  it('delivers on a retry after a 5xx, and does not retry a 4xx', async () => {
    receiver = await startReceiver({
      statusFor: (attempt) => (attempt === 1 ? 500 : attempt === 2 ? 200 : 400),
    });
    sut = await startSandbox({ SANDBOX_RETRY_SCALE: 0.00002 });
    await register('json');
    await sut.admin('POST', '/events', { kind: 'request' });
    await waitFor(async () =>
      (await deliveries()).some((row) => row.outcome === 'delivered') ? true : undefined,
    );
    await sut.admin('POST', '/events', { kind: 'request' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await deliveries()).map((row) => [row.attempt, row.status, row.outcome])).toEqual([
      [1, 500, 'retry_scheduled'],
      [2, 200, 'delivered'],
      [1, 400, 'failed'],
    ]);
    expect(receiver.posts).toHaveLength(3);
  });

  it('retries a network error (nothing listening) and records the error', async () => {
    receiver = await startReceiver();
    sut = await startSandbox({ SANDBOX_RETRY_SCALE: 0.00002 });
    await register('json');
    await receiver.close();
    await sut.admin('POST', '/events', { kind: 'bib' });
    const rows = await waitFor(async () => {
      const current = await deliveries();
      return current.length >= 2 ? current : undefined;
    });
    expect(rows[0]).toMatchObject({
      attempt: 1,
      status: null,
      outcome: 'retry_scheduled',
      error: expect.any(String) as unknown,
    });
  });

  it('refuses job_end for an instance that has not ended, and forgets everything on reset', async () => {
    receiver = await startReceiver();
    sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 60_000 });
    await register('json');
    const run = await sut.admin('POST', '/jobs/S7781/run', {});
    const id = (run.json.job_instance as { id: string }).id;
    expect((await sut.admin('POST', '/events', { kind: 'job_end', instance_id: id })).status).toBe(
      422,
    );
    expect((await sut.admin('POST', '/reset')).status).toBe(204);
    expect((await sut.admin('GET', '/webhooks')).json.profiles).toEqual([]);
    expect((await sut.api('GET', `/conf/jobs/S7781/instances/${id}`)).errorCode).toBe('402218');
  });
  it('loses one webhook in N on purpose (never sent, a lost row), and every one with 1', async () => {
    receiver = await startReceiver();
    sut = await startSandbox({ SANDBOX_WEBHOOK_LOSE_ONE_IN: 3 });
    await register('json');
    for (let n = 0; n < 6; n += 1) await sut.admin('POST', '/events', { kind: 'loan' });
    const rows = await deliveries();
    expect(rows.map((row) => row.outcome)).toEqual([
      'delivered',
      'delivered',
      'lost',
      'delivered',
      'delivered',
      'lost',
    ]);
    expect(receiver.posts).toHaveLength(4);
    const lost = rows.filter((row) => row.outcome === 'lost').map((row) => row.event_id);
    const sent = receiver.posts.map(
      (post) => (JSON.parse(post.body.toString('utf8')) as { id: string }).id,
    );
    expect(sent.filter((id) => lost.includes(id))).toEqual([]);

    expect((await sut.admin('POST', '/webhooks/loss', { one_in: 1 })).status).toBe(204);
    await sut.admin('POST', '/events', { kind: 'bib' });
    await sut.admin('POST', '/events', { kind: 'bib' });
    expect(receiver.posts).toHaveLength(4);
    expect((await deliveries()).slice(6).map((row) => [row.status, row.outcome])).toEqual([
      [null, 'lost'],
      [null, 'lost'],
    ]);
  });
});
