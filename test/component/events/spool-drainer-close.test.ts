import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { openSpool } from '../../../src/events/spool/create-spool';
import type { Spool } from '../../../src/events/spool/create-spool';
import { createDeliverSpooled } from '../../../src/events/spool/deliver-spooled';
import { createSpoolDrainer } from '../../../src/events/spool/spool-drainer';
import { createRejectedStore } from '../../../src/events/rejected-store';
import { Redis } from 'ioredis';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

function spoolJob(spool: Spool, queue: string, id: string): Promise<void> {
  return spool.append({
    kind: 'job',
    spooledAt: Date.now(),
    queue,
    name: 'loan',
    jobId: `evt-${id}`,
    data: { id, action: 'loan', time: '2024-11-06T10:15:30Z' },
    opts: { jobId: `evt-${id}` },
  });
}

// A listener that stops (SIGTERM, a pod scaled away) with events spooled while the queue answers
// again: its drainer's close moves them before the process goes, instead of leaving them on a
// disk no other listener reads.
describe('the spool drainer, closed', () => {
  let dir: string;
  let queueName: string;
  let queue: Queue;
  let redis: Redis;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spool-close-'));
    queueName = uniqueQueueName('spool-close');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    redis = new Redis(TEST_REDIS_URL);
  });
  afterEach(async () => {
    redis.disconnect();
    await queue.close();
    await obliterateQueue(queueName);
    await rm(dir, { recursive: true, force: true });
  });

  it('drains what is spooled once more before it closes, when the queue answers', async () => {
    const log = captureLogger();
    const spool = openSpool({ dir, maxBytes: 1_000_000, logger: log.logger });
    for (const id of ['9500001', '9500002', '9500003']) await spoolJob(spool, queueName, id);
    const rejected = createRejectedStore({ redis, queueName, maxCount: 10, maxAgeHours: 1 });
    const drainer = createSpoolDrainer({
      spool,
      logger: log.logger,
      deliver: createDeliverSpooled({ queueOf: () => queue, rejected, logger: log.logger }),
      ready: async () => {
        await redis.ping();
      },
      // No timed retry during the test: only close can drain.
      retryMs: 60_000,
    });

    await drainer.close();
    await spool.close();

    const jobs = await queue.getJobs(['waiting']);
    expect(jobs.map((job) => job.id).sort()).toEqual(['evt-9500001', 'evt-9500002', 'evt-9500003']);
    expect(await readdir(dir)).toEqual([]);
    expect(log.text()).toContain('spool drained into the queue');
  });
});
