import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { OutageSafeWorker } from '../../../src/worker/outage-safe-worker';
import { startFreezableProxy } from '../../helpers/freezable-proxy';
import type { FreezableProxy } from '../../helpers/freezable-proxy';
import { obliterateQueue, TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A worker whose blocking connection (BullMQ's BZPOPMIN, its own connection) stays connected but
 * stops answering, while its other connection works: as after a cluster primary is lost, BullMQ's
 * wait for jobs never returns. The blocking connection goes through a proxy that freezes it.
 */
describe('a worker whose blocking wait for jobs never returns', () => {
  let proxy: FreezableProxy;
  const queueName = uniqueQueueName('stuck-wait');
  const redisUrl = new URL(TEST_REDIS_URL);

  beforeAll(async () => {
    proxy = await startFreezableProxy({
      host: redisUrl.hostname,
      port: Number(redisUrl.port),
    });
  });
  afterAll(async () => {
    await proxy.close();
    await obliterateQueue(queueName);
  });

  it('still takes the jobs that arrive, by asking for them, and says once that its wait is stuck while Redis answers', async () => {
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    // BullMQ makes the blocking connection with duplicate(): this one goes through the proxy.
    connection.duplicate = () => new Redis(proxy.url, { maxRetriesPerRequest: null });
    const done: string[] = [];
    const errors: Error[] = [];
    const worker = new OutageSafeWorker(
      queueName,
      async (job) => {
        done.push(String(job.id));
      },
      { connection, drainDelay: 1 },
    );
    worker.on('error', (error) => errors.push(error));
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    try {
      await worker.waitUntilReady();
      await queue.add('before', {}, { jobId: 'before' });
      const until = Date.now() + 10_000;
      while (!done.includes('before') && Date.now() < until) await sleep(50);
      expect(done).toEqual(['before']);

      proxy.freeze();
      await sleep(3000);
      await queue.add('after', {}, { jobId: 'after-1' });
      await queue.add('after', {}, { jobId: 'after-2' });
      const deadline = Date.now() + 60_000;
      while (done.length < 3 && Date.now() < deadline) await sleep(100);

      expect(done).toEqual(['before', 'after-1', 'after-2']);
      // Said once Redis has answered for a while with the wait still stuck (not while it is away).
      const stuckErrors = (): Error[] =>
        errors.filter((error) => error.name === 'BlockingWaitStuckError');
      while (stuckErrors().length === 0 && Date.now() < deadline) await sleep(100);
      await sleep(2000);
      const stuck = stuckErrors();
      expect(stuck).toHaveLength(1);
      expect(stuck[0]?.message).toContain(`the wait for jobs of queue ${queueName} did not return`);
    } finally {
      proxy.thaw();
      await queue.close();
      await worker.close(true);
      connection.disconnect();
    }
  });
});
