import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { takeRecoveryLock, recoveryLockKey } from '../../../src/operations/recovery-lock';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

describe('one recovery per route at a time (src/operations/recovery-lock.ts)', () => {
  let queueName: string;
  let queue: Queue;
  let redis: Redis;

  beforeEach(() => {
    queueName = uniqueQueueName('recovery-lock');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    redis = new Redis(TEST_REDIS_URL);
  });
  afterEach(async () => {
    await queue.close();
    await obliterateQueue(queueName);
    redis.disconnect();
  });

  const client = () => queue.backend.connection.client;
  const holder = (replayId: string) => ({
    replayId,
    actor: `op-${replayId}`,
    startedAt: '2026-01-01T00:00:00.000Z',
  });

  it('refuses a second recovery of the route while the first holds it, naming the first', async () => {
    const first = await takeRecoveryLock(await client(), queueName, holder('r1'));
    const second = await takeRecoveryLock(await client(), queueName, holder('r2'));

    expect('lock' in first).toBe(true);
    expect(second).toEqual({ heldBy: holder('r1') });
  });

  it('lets the next recovery run once the first has ended', async () => {
    const first = await takeRecoveryLock(await client(), queueName, holder('r1'));
    if (!('lock' in first)) throw new Error('first refused');
    await first.lock.release();

    const next = await takeRecoveryLock(await client(), queueName, holder('r2'));

    expect('lock' in next).toBe(true);
    expect(JSON.parse((await redis.get(recoveryLockKey(queueName))) ?? '{}')).toEqual(holder('r2'));
  });

  it('gives four concurrent recoveries of one route one lock, and expires a dead holder’s', async () => {
    const four = await Promise.all(
      ['a', 'b', 'c', 'd'].map(async (id) =>
        takeRecoveryLock(await client(), queueName, holder(id)),
      ),
    );

    expect(four.filter((one) => 'lock' in one)).toHaveLength(1);
    // A holder whose process died leaves a key that expires (no release, no refresh).
    expect(await redis.pttl(recoveryLockKey(queueName))).toBeGreaterThan(0);
  });
});
