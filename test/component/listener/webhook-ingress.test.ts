import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import {
  listenerUnderTest,
  TEST_PREVIOUS_SECRET,
  TEST_SECRET,
} from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { rawPost } from '../../helpers/raw-post';
import { startFreezableProxy } from '../../helpers/freezable-proxy';
import { TEST_REDIS_URL, obliterateQueue } from '../../helpers/redis';

const fixture = (name: string): string =>
  readFileSync(path.join(__dirname, '../../fixtures/events', name), 'utf8');

const jobEndJson = fixture('job-end.json');
const jobEndXml = fixture('job-end.xml');

function post(
  listener: ListenerUnderTest,
  body: string | Buffer,
  {
    contentType = 'application/json',
    secret = TEST_SECRET,
    signature,
  }: { contentType?: string | null; secret?: string; signature?: string | null } = {},
): request.Test {
  const req = request(listener.app).post('/webhooks');
  if (contentType !== null) req.set('Content-Type', contentType);
  const header = signature === undefined ? signWebhookBody(secret, body) : signature;
  if (header !== null) req.set('X-Svc-Signature', header);
  return req.send(body);
}

describe('POST /webhooks', () => {
  let listener: ListenerUnderTest;
  beforeEach(() => {
    listener = listenerUnderTest({ previousSecret: TEST_PREVIOUS_SECRET, bodyLimit: '64kb' });
  });
  afterEach(async () => {
    await listener.close();
  });

  const jobCount = (): Promise<number> =>
    listener.events.queue.getJobCountByTypes('waiting', 'active', 'completed', 'failed', 'delayed');

  it('queues a signed JSON job_end as a job named after the lower-cased action', async () => {
    const res = await post(listener, jobEndJson);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'queued', id: '3219421620000561' });
    const jobs = await listener.events.queue.getJobs(['waiting']);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.name).toBe('job_end');
    expect(jobs[0]?.id).toBe('evt-3219421620000561');
    expect(jobs[0]?.data).toMatchObject({
      id: '3219421620000561',
      action: 'job_end',
      job_instance: { id: '5871043560000561', counter: [expect.anything(), expect.anything()] },
      meta: { format: 'json', requestId: res.headers['x-request-id'] },
    });
  });

  it('queues the XML form of the same event with the same data but its meta', async () => {
    const jsonListener = listenerUnderTest();
    try {
      expect((await post(jsonListener, jobEndJson)).status).toBe(200);
      expect((await post(listener, jobEndXml, { contentType: 'application/xml' })).status).toBe(
        200,
      );
      const [fromXml] = await listener.events.queue.getJobs(['waiting']);
      const [fromJson] = await jsonListener.events.queue.getJobs(['waiting']);
      const strip = (data: Record<string, unknown>): Record<string, unknown> => {
        const { meta: _meta, ...rest } = data;
        return rest;
      };
      expect(fromXml?.data.meta.format).toBe('xml');
      expect(strip(fromXml?.data)).toStrictEqual(strip(fromJson?.data));
    } finally {
      await jsonListener.close();
    }
  });

  it('sets the job options for retries and the dedup window', async () => {
    await post(listener, jobEndJson);
    const [job] = await listener.events.queue.getJobs(['waiting']);
    expect(job?.opts).toMatchObject({
      attempts: 5,
      backoff: { type: 'exponential', jitter: 0.5 },
      removeOnComplete: { age: 48 * 3600 },
    });
    expect(job?.opts.removeOnFail).toBeFalsy();
  });

  it('rejects a body with one byte changed after signing (401, no job)', async () => {
    const signature = signWebhookBody(TEST_SECRET, jobEndJson);
    const changed = jobEndJson.replace('"progress": 100', '"progress": 101');
    const res = await post(listener, changed, { signature });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      status: 401,
      error: 'bad_signature',
      message: 'X-Svc-Signature is missing or does not match the body',
    });
    expect(await jobCount()).toBe(0);
  });

  it('rejects a body re-serialized after signing (401)', async () => {
    const signature = signWebhookBody(TEST_SECRET, jobEndJson);
    const reserialized = JSON.stringify(JSON.parse(jobEndJson));
    expect((await post(listener, reserialized, { signature })).status).toBe(401);
    expect(await jobCount()).toBe(0);
  });

  it('accepts a body signed with the previous secret during a rotation', async () => {
    expect((await post(listener, jobEndJson, { secret: TEST_PREVIOUS_SECRET })).status).toBe(200);
  });

  it.each([
    ['missing', null],
    ['garbage', 'garbage'],
    ['signed with another secret', signWebhookBody('another', jobEndJson)],
  ])('rejects a %s signature with 401 and queues nothing', async (_name, signature) => {
    expect((await post(listener, jobEndJson, { signature })).status).toBe(401);
    expect(await jobCount()).toBe(0);
  });

  it('checks the signature before reading the body: an unsigned malformed body is a 401', async () => {
    expect((await post(listener, '{not json', { signature: null })).status).toBe(401);
  });

  it('answers 413 to a body over BODY_LIMIT', async () => {
    const big = JSON.stringify({
      id: '1',
      action: 'x',
      time: '2024-11-06T10:15:30Z',
      pad: 'x'.repeat(70000),
    });
    const res = await post(listener, big);
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('body_too_large');
  });

  it('answers 415 to a Content-Type that is neither JSON nor XML', async () => {
    const res = await post(listener, jobEndJson, { contentType: 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.body.message).toMatch(/text\/plain/);
  });

  it('sniffs JSON and XML when there is no Content-Type', async () => {
    for (const name of ['job-end.json', 'job-end-minimal.xml']) {
      const bytes = Buffer.from(fixture(name), 'utf8');
      const res = await rawPost(listener.app, '/webhooks', bytes, {
        'X-Svc-Signature': signWebhookBody(TEST_SECRET, bytes),
      });
      expect(res.status).toBe(200);
    }
    expect(await jobCount()).toBe(2);
  });

  it('answers 415 when there is no Content-Type and the body is neither JSON nor XML', async () => {
    const bytes = Buffer.from('id=1&action=job_end');
    const res = await rawPost(listener.app, '/webhooks', bytes, {
      'X-Svc-Signature': signWebhookBody(TEST_SECRET, bytes),
    });
    expect(res.status).toBe(415);
  });

  it('answers 400 to malformed JSON and malformed XML, with the parser message', async () => {
    const json = await post(listener, '{"id": "1",');
    expect(json.status).toBe(400);
    expect(json.body.message).toMatch(/^body is not valid JSON/);
    const xml = await post(listener, '<webhook><id>1</id>', { contentType: 'application/xml' });
    expect(xml.status).toBe(400);
    expect(xml.body.message).toMatch(/^body is not well-formed XML/);
  });

  it('answers 400 to a DOCTYPE entity bomb without expanding it', async () => {
    const entities = Array.from(
      { length: 10 },
      (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`,
    ).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE w [<!ENTITY l0 "lol">${entities}]><webhook><id>&l10;</id><action>a</action><time>2024-11-06T10:15:30Z</time></webhook>`;
    const res = await post(listener, bomb, { contentType: 'application/xml' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('XML with a DOCTYPE or ENTITY declaration is not accepted');
  });

  it.each(['id', 'action', 'time'])('answers 400 naming a missing %s', async (field) => {
    const body = Object.fromEntries(
      Object.entries({
        id: '1',
        action: 'JOB_END',
        time: '2024-11-06T10:15:30Z',
      }).filter(([key]) => key !== field),
    );
    const res = await post(listener, JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`${field} is missing`);
  });

  it('answers 400 to a body that is not an object', async () => {
    const res = await post(listener, '[{"id":"1"}]');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/must be an object/);
  });

  it('answers 400 to bytes that are not UTF-8', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"id":"1","action":"a","time":"2024-11-06T10:15:30Z","x":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const res = await rawPost(listener.app, '/webhooks', bytes, {
      'Content-Type': 'application/json',
      'X-Svc-Signature': signWebhookBody(TEST_SECRET, bytes),
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).message).toBe('body is not valid UTF-8');
  });

  it('verifies and queues non-ASCII UTF-8 bodies byte for byte', async () => {
    const bytes = Buffer.from(fixture('loan-created.json'), 'utf8');
    const res = await rawPost(listener.app, '/webhooks', bytes, {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Svc-Signature': signWebhookBody(TEST_SECRET, bytes),
    });
    expect(res.status).toBe(200);
    const [job] = await listener.events.queue.getJobs(['waiting']);
    expect(job?.data.item_loan.title).toBe('Les Misérables <tome 1> & "autres" — 東京');
  });

  it('accepts unknown actions and queues them under their lower-cased name', async () => {
    const body = JSON.stringify({
      id: 'b-1',
      action: 'BIB_UPDATED',
      time: '2024-11-06T10:15:30Z',
      bib: { mms_id: '991' },
    });
    expect((await post(listener, body)).status).toBe(200);
    const [job] = await listener.events.queue.getJobs(['waiting']);
    expect(job?.name).toBe('bib_updated');
  });

  it('answers 200 to a redelivered id and keeps one job', async () => {
    const first = await post(listener, jobEndJson);
    const second = await post(listener, jobEndJson);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.status).toBe('queued');
    expect(second.body.status).toBe('duplicate');
    expect(await jobCount()).toBe(1);
  });

  it('keeps one job when the same id arrives concurrently', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(listener, jobEndJson)));
    expect(answers.map((res) => res.status)).toEqual(Array(12).fill(200));
    expect(answers.filter((res) => res.body.status === 'queued')).toHaveLength(1);
    expect(await jobCount()).toBe(1);
  });

  it('answers each of many concurrent deliveries for itself: one job and one "queued" per id', async () => {
    // The producer connection pipelines the adds of concurrent deliveries into one write; each
    // delivery must still get its own answer.
    const ids = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    const bodyOf = (id: string): string =>
      jobEndJson.replace('"3219421620000561"', JSON.stringify(id));
    const answers = await Promise.all(
      [...ids, ...ids].map(async (id) => ({ id, res: await post(listener, bodyOf(id)) })),
    );
    expect(answers.map(({ res }) => res.status)).toEqual(Array(40).fill(200));
    for (const id of ids) {
      const mine = answers.filter((answer) => answer.id === id);
      expect(mine.map(({ res }) => res.body.id)).toEqual([id, id]);
      expect(mine.map(({ res }) => res.body.status).sort()).toEqual(['duplicate', 'queued']);
    }
    const jobs = await listener.events.queue.getJobs(['waiting']);
    expect(jobs.map((job) => job.data.id).sort()).toEqual([...ids].sort());
  });

  it('answers 405 with Allow to other methods', async () => {
    const res = await request(listener.app).put('/webhooks').send('x');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
  });
});

describe('POST /webhooks while Redis is unreachable', () => {
  it('answers 503 before the sender gives up, and /readyz says unavailable', async () => {
    const listener = listenerUnderTest({ redisUrl: 'redis://127.0.0.1:1' });
    try {
      const res = await post(listener, jobEndJson).timeout(4000);
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('queue_unavailable');
      expect((await request(listener.app).get('/readyz').timeout(4000)).status).toBe(503);
      expect((await request(listener.app).get('/healthz')).status).toBe(200);
    } finally {
      await listener.close();
    }
  });
});

describe('POST /webhooks while Redis is connected but stops answering', () => {
  it('answers 503 before the sender gives up, and 200 again once Redis answers', async () => {
    const redis = new URL(TEST_REDIS_URL);
    const proxy = await startFreezableProxy({
      host: redis.hostname,
      port: Number(redis.port || 6379),
    });
    const listener = listenerUnderTest({ redisUrl: proxy.url });
    const bodyOf = (id: string): string =>
      jobEndJson.replace('"3219421620000561"', JSON.stringify(id));
    try {
      expect((await post(listener, bodyOf('before-freeze'))).status).toBe(200);
      proxy.freeze();
      const stalled = await post(listener, bodyOf('while-frozen')).timeout(4000);
      expect(stalled.status).toBe(503);
      expect(stalled.body.error).toBe('queue_unavailable');
      proxy.thaw();
      expect((await post(listener, bodyOf('after-thaw'))).status).toBe(200);
      const ids = (await listener.events.queue.getJobs(['waiting'])).map((job) => job.data.id);
      // The add sent while frozen reached Redis when it thawed: the sender's retry of that 503
      // is then a duplicate, never a lost event.
      expect(ids.sort()).toEqual(['after-thaw', 'before-freeze', 'while-frozen']);
    } finally {
      await listener.close();
      await proxy.close();
      await obliterateQueue(listener.queueName);
    }
  });
});
