import { listenerOnPort, postSigned } from '../../helpers/listener-on-port';
import { loanEventJson } from '../../helpers/loan-event';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';

// A Redis without replicas: every WAIT for one answers 0 after REDIS_ACK_TIMEOUT_MS.
describe('a delivery whose write the replicas did not confirm (REDIS_ACK_REPLICAS, no spool)', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.close();
  });

  it('is answered 503 queue_unavailable, so the sender retries it, never 500', async () => {
    const running = await listenerOnPort(redis.url, {
      SPOOL_DIR: 'off',
      REDIS_ACK_REPLICAS: '1',
      REDIS_ACK_TIMEOUT_MS: '100',
    });
    try {
      await running.listener.events.ping();
      const answer = await postSigned(running.port, loanEventJson('9500001'));

      expect(answer).toEqual({
        status: 503,
        body: expect.objectContaining({ error: 'queue_unavailable' }) as unknown,
      });
      const line = running.listener.log.lines().find((one) => one.msg === 'delivery');
      expect(line).toMatchObject({
        eventId: '9500001',
        httpStatus: 503,
        outcome: 'queue_unavailable',
      });
    } finally {
      await running.close();
    }
  });
});
