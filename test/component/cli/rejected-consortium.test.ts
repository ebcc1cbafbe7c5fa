import { loanEventJson } from '../../helpers/loan-event';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { runCli } from '../../../src/cli/run-cli';
import { createRejectedStore } from '../../../src/events/rejected-store';
import type { RejectedStore } from '../../../src/events/rejected-store';
import { institutionQueueName } from '../../../src/institutions/institution-queue-name';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { captureIo } from './cli-io-capture';

const A = '01AAA_INST';
const B = '01BBB_INST';

function loan(id: string, institution?: string): Buffer {
  return Buffer.from(loanEventJson(id, institution));
}

describe('npm run events -- rejected replay, in a consortium (INSTITUTIONS_FILE)', () => {
  const base = uniqueQueueName('rejected-consortium');
  const dir = mkdtempSync(join(tmpdir(), 'rejected-consortium-'));
  const institutionsFile = join(dir, 'institutions.yaml');
  const redis = new Redis(TEST_REDIS_URL);
  const store: RejectedStore = createRejectedStore({
    redis,
    queueName: base,
    maxCount: 100,
    maxAgeHours: 1,
  });
  const queueOf = (code: string) =>
    new Queue(institutionQueueName(base, code), { connection: { url: TEST_REDIS_URL } });
  const queueA = queueOf(A);
  const queueB = queueOf(B);
  const baseQueue = new Queue(base, { connection: { url: TEST_REDIS_URL } });
  const env = {
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: base,
    INSTITUTIONS_FILE: institutionsFile,
    A_SECRET: 'secret-of-member-a-0001',
  };
  const keep = (body: Buffer, institution: string | undefined, requestId: string) =>
    store.keep({
      body,
      contentType: 'application/json',
      reason: 'refused by an older version',
      status: 400,
      receivedAt: new Date(Date.now() - 60000),
      requestId,
      institution,
    });

  beforeAll(async () => {
    // The store gives a connection 1 s to be ready (the listener's bound); this one is the
    // test's own, opened as the file loads: ready before the first test, on a busy machine too.
    await redis.ping();
    const member = (code: string, secret: string) =>
      [
        `  - code: ${code}`,
        `    webhookSecret: ${secret}`,
        '    apiKey: key',
        '    baseUrl: http://127.0.0.1:1',
      ].join('\n');
    writeFileSync(
      institutionsFile,
      `institutions:\n${member(A, '${A_SECRET}')}\n${member(B, 'secret-of-member-b-0002')}\n`,
    );
  });
  afterAll(async () => {
    await Promise.all([queueA.close(), queueB.close(), baseQueue.close()]);
    redis.disconnect();
    await Promise.all([base, queueA.name, queueB.name].map(obliterateQueue));
    rmSync(dir, { recursive: true, force: true });
  });

  it("queues an entry kept on A's path on A's queue, with A's institution when the body had none", async () => {
    const { ref } = await keep(loan('5001'), A, 'req-a');
    const io = captureIo(env);
    expect(await runCli(['rejected', 'replay', ref], io)).toBe(0);
    expect(io.stdout()).toContain(`✓ ${ref}: queued as evt-5001 for ${A} (event 5001)`);
    const job = await queueA.getJob('evt-5001');
    expect(job?.data).toMatchObject({
      id: '5001',
      action: 'loan',
      institution: { value: A },
      meta: { requestId: 'req-a' },
    });
    expect(await queueB.getJob('evt-5001')).toBeUndefined();
    expect(await baseQueue.getJob('evt-5001')).toBeUndefined();
    expect(await store.get(ref)).toBeUndefined();
  });

  it("still refuses an entry kept on A's path whose body names B, and keeps it", async () => {
    const { ref } = await keep(loan('5002', B), A, 'req-ab');
    const io = captureIo(env);
    expect(await runCli(['rejected', 'replay', ref], io)).toBe(1);
    expect(io.stderr()).toContain(`✗ ${ref}: still refused: the event's institution is not ${A}`);
    expect(await queueA.getJob('evt-5002')).toBeUndefined();
    expect(await queueB.getJob('evt-5002')).toBeUndefined();
    expect(await store.get(ref)).toBeDefined();
  });

  it('refuses, and keeps, an entry without an institution or of a code the file does not list', async () => {
    const none = await keep(loan('5003'), undefined, 'req-none');
    const gone = await keep(loan('5004'), '01CCC_INST', 'req-c');
    const io = captureIo(env);
    expect(await runCli(['rejected', 'replay', none.ref], io)).toBe(1);
    expect(await runCli(['rejected', 'replay', gone.ref], io)).toBe(1);
    expect(io.stderr()).toContain(`✗ ${none.ref}: not replayed: kept without an institution`);
    expect(io.stderr()).toContain(
      `✗ ${gone.ref}: not replayed: institution 01CCC_INST is not in INSTITUTIONS_FILE`,
    );
    expect(await baseQueue.getJob('evt-5003')).toBeUndefined();
    expect(await store.get(none.ref)).toBeDefined();
    expect(await store.get(gone.ref)).toBeDefined();
  });

  it("refuses a member's entry without INSTITUTIONS_FILE rather than queue it on the base queue", async () => {
    const { ref } = await keep(loan('5005'), B, 'req-b');
    const { INSTITUTIONS_FILE: _file, ...single } = env;
    const io = captureIo(single);
    expect(await runCli(['rejected', 'replay', ref], io)).toBe(1);
    expect(io.stderr()).toContain(`kept on institution ${B}'s path: set INSTITUTIONS_FILE`);
    expect(await baseQueue.getJob('evt-5005')).toBeUndefined();
  });
});
