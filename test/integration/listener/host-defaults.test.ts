import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';
import { uniqueQueueName } from '../../helpers/redis';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

jest.setTimeout(90_000);

const SECRET = 'host-defaults-secret';
const template = JSON.parse(
  readFileSync(join(__dirname, '../../fixtures/events/loan-created.json'), 'utf8'),
) as Record<string, unknown>;

/** A signed LOAN_CREATED with this id, posted as the platform posts it. */
async function deliver(
  port: number,
  id: string,
  requestId = `host-defaults-${id}`,
): Promise<{ status: number; body: unknown }> {
  const body = JSON.stringify({ ...template, id });
  const response = await fetch(`http://127.0.0.1:${String(port)}/webhooks`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Svc-Signature': signWebhookBody(SECRET, body),
      'X-Request-Id': requestId,
    },
    body,
  });
  return { status: response.status, body: await response.json() };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The listener as the host and systemd recipes run it (src/bin/web.ts as its own process, no
 * SPOOL_DIR, HOST from the recipe) on a private redis-server the test stops.
 */
describe('the listener started by the host recipe', () => {
  let redis: PrivateRedis;
  let state: string;
  const children: ChildWorker[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  beforeEach(async () => {
    await redis.start();
    state = await mkdtemp(join(tmpdir(), 'host-defaults-'));
  });
  afterEach(async () => {
    for (const one of children.splice(0)) {
      one.child.kill('SIGKILL');
      await one.exited();
    }
    await rm(state, { recursive: true, force: true });
  });
  afterAll(async () => {
    await redis.close();
  });

  const startListener = async (
    env: Record<string, string>,
  ): Promise<{ web: ChildWorker; ready: Record<string, unknown> }> => {
    const web = spawnWorker('src/bin/web.ts', {
      PORT: '0',
      WEBHOOK_SECRET: SECRET,
      REDIS_URL: redis.url,
      // Empty: unset, as in the recipe (the helper turns the spool off unless told).
      SPOOL_DIR: '',
      HOST: '',
      ...env,
    });
    children.push(web);
    return { web, ready: await web.waitForLine((line) => line.msg === 'listener ready') };
  };

  it('spools by default in $STATE_DIRECTORY/spool: 200 spooled through a Redis stop, queued once Redis is back', async () => {
    const queueName = uniqueQueueName('host-spool');
    const { web, ready } = await startListener({ QUEUE_NAME: queueName, STATE_DIRECTORY: state });
    const said = await web.waitForLine((line) => typeof line.spool === 'string');
    expect([said.spool, said.from]).toEqual([join(state, 'spool'), 'STATE_DIRECTORY']);

    await redis.stop();
    const answers = [
      await deliver(Number(ready.port), '96000001'),
      await deliver(Number(ready.port), '96000002'),
    ];
    expect(answers.map((one) => one.status)).toEqual([200, 200]);
    expect(answers.map((one) => (one.body as { status?: string }).status)).toEqual([
      'spooled',
      'spooled',
    ]);
    expect((await readdir(join(state, 'spool'))).some((name) => name.endsWith('.spool'))).toBe(
      true,
    );

    await redis.start();
    const queue = new Queue(queueName, { connection: { url: redis.url } });
    try {
      await until(async () => (await queue.getJobCounts('waiting')).waiting === 2, 'both queued');
      const ids = (await queue.getJobs(['waiting'])).map((job) => job.id).sort();
      expect(ids).toEqual(['evt-96000001', 'evt-96000002']);
    } finally {
      await queue.close();
    }
  });

  it('listens on the loopback only, with HOST=127.0.0.1 and by default', async () => {
    const given = await startListener({
      QUEUE_NAME: uniqueQueueName('host-bind'),
      HOST: '127.0.0.1',
      SPOOL_DIR: 'off',
    });
    const unset = await startListener({
      QUEUE_NAME: uniqueQueueName('host-bind'),
      SPOOL_DIR: 'off',
    });

    const listening = execFileSync('ss', ['-ltnH'], { encoding: 'utf8' });
    for (const { ready } of [given, unset]) {
      expect(ready.host).toBe('127.0.0.1');
      const port = `:${String(ready.port)}`;
      const lines = listening.split('\n').filter((line) => line.includes(`${port} `));
      expect(lines.map((line) => line.split(/\s+/)[3])).toEqual([`127.0.0.1${port}`]);
    }
  });

  it('answers 503 through a Redis stop with SPOOL_DIR=off, and says at start-up that it does not spool', async () => {
    const { web, ready } = await startListener({
      QUEUE_NAME: uniqueQueueName('host-off'),
      SPOOL_DIR: 'off',
      STATE_DIRECTORY: state,
    });
    const said = await web.waitForLine((line) => line.spool === null);
    expect(said.msg).toContain('no spool (SPOOL_DIR=off)');

    await redis.stop();
    const answer = await deliver(Number(ready.port), '96000003');

    expect(answer.status).toBe(503);
    expect(await readdir(state)).toEqual([]);
    // One line for the 503, its err without a stack: the stack only at debug (not two stacks per
    // delivery in an outage).
    await web.waitForLine(
      (line) => line.requestId === 'host-defaults-96000003' && line.msg === 'delivery',
    );
    const about = web
      .lines()
      .filter((line) => line.requestId === 'host-defaults-96000003' && line.msg !== 'delivery');
    expect(
      about.map((line) => [line.msg, line.code, Object.keys(line.err as object).sort()]),
    ).toEqual([
      ['event not queued: queue unavailable', 'queue_unavailable', ['code', 'message', 'type']],
    ]);
  });
});
