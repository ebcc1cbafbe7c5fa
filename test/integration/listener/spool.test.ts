import { mkdtemp, readdir, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { openSpool } from '../../../src/events/spool/create-spool';
import { SpoolLockedError } from '../../../src/events/spool/spool-lock';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_SECRET } from '../../helpers/listener-under-test';
import { getText, listenerOnPort, postSigned, waitFor } from '../../helpers/listener-on-port';
import type { Answer, ListenerOnPort } from '../../helpers/listener-on-port';
import { loanEventJson } from '../../helpers/loan-event';
import { startPrivateRedis } from '../../helpers/private-redis';
import { within } from '../../helpers/within';
import { startDeliveries } from '../redis-ha/support/send-deliveries';
import type { PrivateRedis } from '../../helpers/private-redis';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const depthOf = (running: ListenerOnPort): number => running.depth();
const startListener = (redis: PrivateRedis, env: Record<string, string>) =>
  listenerOnPort(redis.url, env);

describe('the listener spool', () => {
  let redis: PrivateRedis;
  let dir: string;

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.close();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spool-test-'));
    await redis.start();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 200 while Redis is stopped and queues every event once, same job ids, when it returns', async () => {
    const running = await startListener(redis, { SPOOL_DIR: dir });
    const queue = new Queue(running.listener.queueName, { connection: { url: redis.url } });
    queue.on('error', () => undefined);
    try {
      await redis.stop();
      const ids = Array.from({ length: 50 }, (_, i) => `9100${String(i)}`);
      const answers: Answer[] = [];
      // One after the other, so the arrival order is known.
      for (const id of ids) answers.push(await postSigned(running.port, loanEventJson(id)));

      expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
      expect(new Set(answers.map((answer) => answer.body.status))).toEqual(new Set(['spooled']));
      expect(depthOf(running)).toBe(50);
      // Ready while the spool has room: a load balancer keeps sending through the outage.
      expect(JSON.parse(await getText(running.port, '/readyz'))).toEqual({ status: 'ready' });
      const metrics = await getText(running.port, '/metrics');
      expect(metrics).toMatch(/^svcws_spool_depth 50$/m);
      expect(metrics).toMatch(/^svcws_spool_bytes [1-9]\d*$/m);
      expect(metrics).toMatch(/^svcws_spool_oldest_seconds (0\.\d*[1-9]\d*|[1-9][\d.]*)$/m);
      expect(metrics).toMatch(
        /^svcws_webhook_deliveries_total\{outcome="spooled",status="200"\} 50$/m,
      );

      await redis.start();
      await waitFor(() => running.listener.process.spool?.isEmpty() === true, 'the spool to empty');
      // Sent again once Redis is back: a redelivery of a drained event is one job still.
      expect((await postSigned(running.port, loanEventJson(ids[0] ?? ''))).body.status).toBe(
        'duplicate',
      );

      // Oldest first: the queue got them in the order they arrived.
      const jobs = await queue.getJobs(['waiting'], 0, -1, true);
      expect(jobs.map((job) => job.id)).toEqual(ids.map((id) => `evt-${id}`));
      expect(depthOf(running)).toBe(0);
      expect(await getText(running.port, '/metrics')).toMatch(/^svcws_spool_depth 0$/m);
      expect(await readdir(dir)).toEqual(['spool.lock']);
      expect(running.listener.log.text()).toContain('spool drained into the queue');
    } finally {
      await queue.close();
      await running.close();
    }
  });

  it('at 100 deliveries/s through a Redis outage and back: every answer 200, every event queued once, the spool empty soon after', async () => {
    const running = await within(
      'the listener start',
      60_000,
      startListener(redis, { SPOOL_DIR: dir }),
    );
    const queue = new Queue(running.listener.queueName, { connection: { url: redis.url } });
    queue.on('error', () => undefined);
    try {
      const run = startDeliveries({
        port: running.port,
        secret: TEST_SECRET,
        perSecond: 100,
        idPrefix: '96',
      });
      await sleep(1000);
      await within('Redis stopped', 30_000, redis.stop());
      await sleep(5000);
      expect(depthOf(running)).toBeGreaterThan(300);
      await within('Redis started again', 30_000, redis.start());
      await sleep(4000);
      const records = await within('the deliveries in flight', 60_000, run.stop());
      await waitFor(() => running.listener.process.spool?.isEmpty() === true, 'the spool to empty');

      expect(records.filter((record) => record.status !== 200)).toEqual([]);
      const waiting = await within('the queue read', 30_000, queue.getJobs(['waiting']));
      const ids = waiting.map((job) => job.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(records.length).toBeGreaterThan(800);
      expect(ids.sort()).toEqual(records.map((record) => `evt-${record.id}`).sort());
    } finally {
      await within('the queue closed', 30_000, queue.close());
      await within('the listener closed', 30_000, running.close());
    }
  });

  it('keeps a refused delivery in the spool while Redis is stopped and moves it to the rejected store', async () => {
    const running = await startListener(redis, { SPOOL_DIR: dir });
    try {
      await redis.stop();
      const refused = await postSigned(running.port, JSON.stringify({ id: '77', action: 42 }));
      expect(refused.status).toBe(400);
      expect(depthOf(running)).toBe(1);

      await redis.start();
      await waitFor(() => depthOf(running) === 0, 'the spool to empty');
      const kept = await running.listener.rejected.list();
      expect(kept.map((entry) => [entry.eventId, entry.status])).toEqual([['77', 400]]);
    } finally {
      await running.close();
    }
  });

  it('answers 503 spool_full, naming SPOOL_MAX_BYTES, once the spool is full', async () => {
    const running = await startListener(redis, { SPOOL_DIR: dir, SPOOL_MAX_BYTES: '4000' });
    try {
      await redis.stop();
      const answers: Answer[] = [];
      for (let i = 0; i < 20; i += 1)
        answers.push(await postSigned(running.port, loanEventJson(`92${String(i)}`)));

      const full = answers.filter((answer) => answer.status === 503);
      expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
      expect(full.length).toBeGreaterThan(0);
      expect(full[0]?.body).toMatchObject({
        error: 'spool_full',
        message: 'the spool is full (SPOOL_MAX_BYTES 4000)',
      });
      expect(running.listener.process.spool?.stats().bytes).toBeLessThanOrEqual(4000);
    } finally {
      await running.close();
    }
  });

  it('detects a torn last record, keeps it aside with one log line, and drains the rest', async () => {
    const first = await startListener(redis, { SPOOL_DIR: dir });
    await redis.stop();
    for (let i = 0; i < 5; i += 1) {
      expect((await postSigned(first.port, loanEventJson(`930${String(i)}`))).status).toBe(200);
    }
    await first.close();
    // Closed with Redis still away: the last drain cannot run, and the log says what stays.
    expect(
      first.listener.log
        .lines()
        .find((line) => line.msg === 'spool left on disk: the next listener on it drains it'),
    ).toMatchObject({ level: 40, left: 5 });
    const [segment] = (await readdir(dir)).filter((name) => name.endsWith('.spool'));
    const path = join(dir, segment ?? '');
    // Cut the last record in the middle, as a process killed mid-write would leave it.
    await truncate(path, (await stat(path)).size - 40);
    await redis.start();

    const queueName = first.listener.queueName;
    const second = await startListener(redis, { SPOOL_DIR: dir, QUEUE_NAME: queueName });
    const queue = new Queue(queueName, { connection: { url: redis.url } });
    try {
      const torn = second.listener.log
        .lines()
        .filter((line) => line.msg === 'spool: torn tail kept aside (a write cut short)');
      expect(torn).toEqual([
        expect.objectContaining({
          level: 40,
          segment: path,
          reason: 'torn',
          bytes: expect.any(Number),
        }),
      ]);
      const jobs = await queue.getJobs(['waiting']);
      expect(jobs.map((job) => job.id).sort()).toEqual([
        'evt-9300',
        'evt-9301',
        'evt-9302',
        'evt-9303',
      ]);
      expect(depthOf(second)).toBe(0);
    } finally {
      await queue.close();
      await second.close();
    }
  });

  it('refuses a second spool on the same directory, naming the holder', async () => {
    const first = await startListener(redis, { SPOOL_DIR: dir });
    try {
      const second = () => openSpool({ dir, maxBytes: 1000, logger: captureLogger().logger });
      expect(second).toThrow(SpoolLockedError);
      expect(second).toThrow(`spool directory ${dir} is in use by process ${String(process.pid)}`);
    } finally {
      await first.close();
    }
    // Released on close: the next process takes it.
    const next = openSpool({ dir, maxBytes: 1000, logger: captureLogger().logger });
    await next.close();
  });
});
