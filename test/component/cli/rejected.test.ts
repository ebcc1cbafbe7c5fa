import request from 'supertest';
import { Redis } from 'ioredis';
import { runCli } from '../../../src/cli/run-cli';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { createRejectedStore } from '../../../src/events/rejected-store';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { TEST_REDIS_URL } from '../../helpers/redis';
import { captureIo } from './cli-io-capture';

const NO_TIME = '{"id":"rj-no-time","action":"JOB_END"}';
const BAD_XML = '<webhook><id>rj-2</id>';

describe('npm run events -- rejected', () => {
  let listener: ListenerUnderTest;
  const env = (): Record<string, string> => ({
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: listener.queueName,
  });
  const deliver = (body: string, contentType: string) =>
    request(listener.app)
      .post('/webhooks')
      .set('Content-Type', contentType)
      .set('X-Svc-Signature', signWebhookBody(TEST_SECRET, body))
      .send(body);

  beforeEach(async () => {
    listener = listenerUnderTest();
    expect((await deliver(NO_TIME, 'application/json')).status).toBe(400);
    expect((await deliver(BAD_XML, 'application/xml')).status).toBe(400);
  });
  afterEach(async () => {
    await listener.close();
  });

  it('lists the kept deliveries newest first, one line each with its reason', async () => {
    const io = captureIo(env());
    expect(await runCli(['rejected'], io)).toBe(0);
    const lines = io.stdout().split('\n');
    expect(lines[0]).toBe('2 rejected deliveries, newest first:');
    expect(lines[1]).toMatch(
      /^[0-9a-f]{16} {2}\S+Z {2}400 {2}22 B {2}- {2}body is not well-formed XML/,
    );
    expect(lines[2]).toMatch(/^[0-9a-f]{16} .* rj-no-time {2}time is missing/);
  });

  it('prints the documented JSON array with --json', async () => {
    const io = captureIo(env());
    expect(await runCli(['rejected', '--json'], io)).toBe(0);
    const entries = JSON.parse(io.stdout()) as Record<string, unknown>[];
    expect(entries[1]).toEqual({
      ref: expect.stringMatching(/^[0-9a-f]{16}$/),
      receivedAt: expect.any(String),
      status: 400,
      reason: 'time is missing',
      contentType: 'application/json',
      bytes: NO_TIME.length,
      eventId: 'rj-no-time',
    });
  });

  it('shows the raw body of one entry on stdout, byte for byte', async () => {
    const [, entry] = await listener.rejected.list();
    const chunks: Buffer[] = [];
    const io = { ...captureIo(env()), outBytes: (bytes: Buffer) => chunks.push(bytes) };
    expect(await runCli(['rejected', 'show', entry?.ref ?? ''], io)).toBe(0);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(NO_TIME);
    expect(await runCli(['rejected', 'show', 'ffffffffffffffff'], captureIo(env()))).toBe(1);
  });

  it('replays through the listener pipeline: queues what is now accepted, reports what is still refused', async () => {
    // An entry as a newer listener would accept it (kept here directly, as an upgrade would find it).
    const redis = new Redis(TEST_REDIS_URL);
    const store = createRejectedStore({
      redis,
      queueName: listener.queueName,
      maxCount: 10,
      maxAgeHours: 1,
    });
    const accepted = '{"id":"rj-ok","action":"JOB_END","time":"2024-11-06T10:15:30Z"}';
    const { ref } = await store.keep({
      body: Buffer.from(accepted),
      contentType: 'application/json',
      reason: 'refused by an older version',
      status: 400,
      receivedAt: new Date(Date.now() - 60000),
      requestId: 'req-1',
    });
    redis.disconnect();

    const io = captureIo(env());
    expect(await runCli(['rejected', 'replay', '--all'], io)).toBe(1);
    expect(io.stdout()).toContain(`✓ ${ref}: queued as evt-rj-ok (event rj-ok)`);
    expect(io.stderr()).toMatch(/still refused: time is missing/);
    expect(io.stdout()).toContain('1 of 3 replayed');
    const [job] = await listener.events.queue.getJobs(['waiting']);
    expect(job?.data).toMatchObject({
      id: 'rj-ok',
      action: 'job_end',
      meta: { requestId: 'req-1' },
    });
    expect((await listener.rejected.list()).map((entry) => entry.ref)).not.toContain(ref);
    expect(await listener.rejected.list()).toHaveLength(2);
  });

  it('removes one entry, then all', async () => {
    const [first] = await listener.rejected.list();
    expect(await runCli(['rejected', 'remove', first?.ref ?? ''], captureIo(env()))).toBe(0);
    expect(await listener.rejected.list()).toHaveLength(1);
    expect(await runCli(['rejected', 'remove', first?.ref ?? ''], captureIo(env()))).toBe(1);
    expect(await runCli(['rejected', 'remove', '--all'], captureIo(env()))).toBe(0);
    expect(await listener.rejected.list()).toEqual([]);
  });

  it.each([
    [['rejected', 'show']],
    [['rejected', 'replay']],
    [['rejected', 'remove', 'abc', '--all']],
    [['rejected', 'frobnicate']],
    [['rejected', '--limit', '3']],
  ])('exits 2 on a wrong command line: %j', async (argv) => {
    const io = captureIo(env());
    expect(await runCli(argv, io)).toBe(2);
    expect(io.stderr()).toMatch(/rejected/);
  });

  it('exits 1 naming Redis when it cannot be reached', async () => {
    const io = captureIo({ REDIS_URL: 'redis://127.0.0.1:1', QUEUE_NAME: listener.queueName });
    expect(await runCli(['rejected'], io)).toBe(1);
    expect(io.stderr()).toContain('cannot reach Redis at 127.0.0.1:1');
  });
});
