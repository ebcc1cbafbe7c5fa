import { Queue } from 'bullmq';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { ReplicasNotConfirmedError } from '../../../src/events/replicas-not-confirmed-error';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

// The tests' Redis is a lone server (no replicas): WAIT 1 can never be confirmed there. The
// confirmed case, with real replicas, is test/integration/redis-ha.
const event: CanonicalEvent = {
  id: '5510001',
  action: 'loan',
  time: '2024-11-06T10:15:30Z',
};

describe('REDIS_ACK_REPLICAS on a Redis without replicas', () => {
  let queueName: string;
  let queue: Queue;

  beforeEach(() => {
    queueName = uniqueQueueName('ack');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
  });

  afterEach(async () => {
    await queue.close();
    await obliterateQueue(queueName);
  });

  it('fails the enqueue after the ack timeout, the job still queued (the retry is a duplicate)', async () => {
    const enqueue = createEventEnqueuer({
      queue,
      dedupWindowHours: 1,
      attempts: 1,
      ackReplicas: { replicas: 1, timeoutMs: 200 },
    });
    const started = Date.now();

    const failure = await enqueue(event).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(ReplicasNotConfirmedError);
    expect(failure).toMatchObject({ confirmed: 0, required: 1, timeoutMs: 200 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await queue.getJobState(jobIdForEvent(event.id))).toBe('waiting');
    // A redelivery waits for the replicas too: a 200 always means replicated.
    await expect(enqueue(event)).rejects.toBeInstanceOf(ReplicasNotConfirmedError);
  });

  it('answers at once with 0 replicas asked for, as without the option', async () => {
    const enqueue = createEventEnqueuer({
      queue,
      dedupWindowHours: 1,
      attempts: 1,
      ackReplicas: { replicas: 0, timeoutMs: 5000 },
    });
    const started = Date.now();

    await expect(enqueue(event)).resolves.toEqual({
      jobId: jobIdForEvent(event.id),
      duplicate: false,
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
