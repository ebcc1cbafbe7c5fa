import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { ReplicasNotConfirmedError } from '../../../src/events/replicas-not-confirmed-error';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

// The tests' Redis is a lone server (no replicas): WAIT 1 can never be confirmed there. The
// confirmed case, with real replicas, is test/integration/redis-ha.
/** The commands one client sends, read through MONITOR from another connection. */
async function commandsOf(
  monitor: Redis,
  source: string,
): Promise<{ names: () => string[]; stop: () => void }> {
  const names: string[] = [];
  const watched = await monitor.monitor();
  // On a busy shared Redis the first MONITOR lines can come before ioredis takes the connection
  // as monitoring, and it reports each as a "Command queue state error": they precede MONITOR's
  // answer, so before this test's commands, which are sent after it.
  watched.on('error', () => undefined);
  watched.on('monitor', (_time: string, args: string[], from: string) => {
    if (from === source) names.push(String(args[0]).toLowerCase());
  });
  return { names: () => names, stop: () => watched.disconnect() };
}

const event: CanonicalEvent = {
  id: '5510001',
  action: 'loan',
  time: '2024-11-06T10:15:30Z',
};

describe('REDIS_ACK_REPLICAS on a Redis without replicas', () => {
  let queueName: string;
  let connection: Redis;
  let queue: Queue;

  // As the listener: the queue and the WAIT on one connection (WAIT counts its own writes).
  beforeEach(() => {
    queueName = uniqueQueueName('ack');
    connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    queue = new Queue(queueName, { connection });
  });

  afterEach(async () => {
    await queue.close();
    await connection.quit();
    await obliterateQueue(queueName);
  });

  it('fails the enqueue after the ack timeout, the job still queued (the retry is a duplicate)', async () => {
    const enqueue = createEventEnqueuer({
      queue,
      dedupWindowHours: 1,
      attempts: 1,
      ackReplicas: { replicas: 1, timeoutMs: 200, connection },
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

  it('sends one WAIT for the deliveries whose adds were answered while another was out, not one each', async () => {
    const enqueue = createEventEnqueuer({
      queue,
      dedupWindowHours: 1,
      attempts: 1,
      ackReplicas: { replicas: 1, timeoutMs: 300, connection },
    });
    const client = await queue.backend.connection.client;
    // `addr=127.0.0.1:port` of the queue's connection, as MONITOR names the sender.
    const info = String(await client.runCommand('client', ['info']));
    const address = /\baddr=(\S+)/.exec(info)?.[1] ?? 'none';
    const monitor = new Redis(TEST_REDIS_URL);
    const commands = await commandsOf(monitor, address);
    try {
      const events = Array.from({ length: 20 }, (_, i) => ({ ...event, id: `55200${String(i)}` }));
      const outcomes = await Promise.all(
        events.map((one) =>
          enqueue(one).then(
            () => 'confirmed',
            (error: unknown) => error,
          ),
        ),
      );

      for (const outcome of outcomes) {
        expect(outcome).toBeInstanceOf(ReplicasNotConfirmedError);
      }
      for (const one of events) {
        expect(await queue.getJobState(jobIdForEvent(one.id))).toBe('waiting');
      }
      const waits = commands.names().filter((name) => name === 'wait');
      // One out, the next for everyone who asked meanwhile, at most one more for the stragglers.
      expect(waits.length).toBeGreaterThanOrEqual(1);
      expect(waits.length).toBeLessThanOrEqual(3);
    } finally {
      commands.stop();
      monitor.disconnect();
    }
  });

  it('answers at once with 0 replicas asked for, as without the option', async () => {
    const enqueue = createEventEnqueuer({
      queue,
      dedupWindowHours: 1,
      attempts: 1,
      ackReplicas: { replicas: 0, timeoutMs: 5000, connection },
    });
    const started = Date.now();

    await expect(enqueue(event)).resolves.toEqual({
      jobId: jobIdForEvent(event.id),
      duplicate: false,
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
