import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { getText, listenerOnPort, postSigned, waitFor } from '../../helpers/listener-on-port';
import type { ListenerOnPort } from '../../helpers/listener-on-port';
import { loanEventJson } from '../../helpers/loan-event';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';

const ACK_TIMEOUT_MS = 3000;

/** One delivery WAIT does not confirm: 200 spooled, why logged, kept by the drains that follow. */
async function expectSpooledUnconfirmed(running: ListenerOnPort, dir: string): Promise<void> {
  const answer = await postSigned(running.port, loanEventJson('9400001'));

  expect(answer).toEqual({ status: 200, body: expect.objectContaining({ status: 'spooled' }) });
  const log = running.listener.log;
  expect(log.lines().find((line) => line.reason === 'replicas_not_confirmed')).toMatchObject({
    level: 40,
    msg: 'replicas did not confirm the write: spooling events to disk',
    eventId: '9400001',
    err: { message: `the job reached 0 of 1 replicas within ${String(ACK_TIMEOUT_MS)} ms` },
  });
  // The drain adds it again (a no-op) but keeps the file while WAIT still sees no replica.
  await waitFor(
    () => log.text().includes('spool drain waits: the replicas do not confirm'),
    'a drain to meet the unconfirmed WAIT',
  );
  expect(running.depth()).toBe(1);
  expect((await readdir(dir)).filter((name) => name.endsWith('.spool'))).toHaveLength(1);
  const metrics = await getText(running.port, '/metrics');
  expect(metrics).toMatch(/^svcws_spool_depth 1$/m);
  expect(metrics).toMatch(/^svcws_webhook_deliveries_total\{outcome="spooled",status="200"\} 1$/m);
}

/** Once a replica confirms, the drain empties the spool: one job, its id, on the replica too. */
async function expectQueuedOnceReplicated(
  running: ListenerOnPort,
  dir: string,
  queue: Queue,
  replica: Redis,
): Promise<void> {
  await waitFor(async () => (await readdir(dir)).length === 1, 'the spool file to go', 15_000);

  expect(await readdir(dir)).toEqual(['spool.lock']);
  expect(running.depth()).toBe(0);
  const jobs = await queue.getJobs(['waiting']);
  expect(jobs.map((job) => [job.id, job.name, (job.data as { id: string }).id])).toEqual([
    ['evt-9400001', 'loan', '9400001'],
  ]);
  // Removed only once WAIT confirmed: the replica holds the job.
  expect(await replica.exists(queue.toKey('evt-9400001'))).toBe(1);
  expect(running.listener.log.text()).toContain('spool drained into the queue');
  // A redelivery now is confirmed at once, and still one job.
  expect((await postSigned(running.port, loanEventJson('9400001'))).body.status).toBe('duplicate');
  expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
}

// A primary that sends a replica its data at once (the default waits 5 s for more replicas), and
// a second server that becomes its replica only when the test says so: until then WAIT 1 is 0.
describe('the listener spool with REDIS_ACK_REPLICAS=1', () => {
  let primary: PrivateRedis;
  let replica: PrivateRedis;
  let dir: string;

  beforeAll(async () => {
    [primary, replica] = await Promise.all([
      startPrivateRedis({ args: ['--repl-diskless-sync-delay', '0'] }),
      startPrivateRedis(),
    ]);
    dir = await mkdtemp(join(tmpdir(), 'spool-ack-'));
  });
  afterAll(async () => {
    await Promise.all([primary.close(), replica.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 200 spooled when WAIT does not confirm, and queues the event once, same job id, once a replica confirms', async () => {
    const running = await listenerOnPort(primary.url, {
      SPOOL_DIR: dir,
      REDIS_ACK_REPLICAS: '1',
      // A deadline, not a clock: the redelivery below is confirmed within it also on a starved
      // machine (200 ms once was not, in a fresh container beside other work).
      REDIS_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS),
    });
    const queue = new Queue(running.listener.queueName, { connection: { url: primary.url } });
    const replicaClient = new Redis(replica.url);
    try {
      // Connected first: an event sent before is spooled at once, for another reason.
      await running.listener.events.ping();

      await expectSpooledUnconfirmed(running, dir);

      await replicaClient.replicaof('127.0.0.1', primary.port);
      await expectQueuedOnceReplicated(running, dir, queue, replicaClient);
    } finally {
      replicaClient.disconnect();
      await queue.close();
      await running.close();
    }
  });
});
