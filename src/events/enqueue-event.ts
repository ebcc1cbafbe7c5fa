import type { Queue } from 'bullmq';
import type { CanonicalEvent } from './canonical-event';
import { jobIdForEvent } from './job-id-for-event';
import { ReplicasNotConfirmedError } from './replicas-not-confirmed-error';
import { sharedReplicaWait } from './shared-replica-wait';
import type { RedisClient } from '../redis/redis-client';
import { waitForReplicas } from '../redis/wait-for-replicas';

export interface EnqueueResult {
  jobId: string;
  /** The event id was already queued (a redelivery); nothing new was added. */
  duplicate: boolean;
  /** The queue did not answer: the job was written to the disk spool instead (src/events/spool/). */
  spooled?: boolean;
}

export type EnqueueEvent = (event: CanonicalEvent) => Promise<EnqueueResult>;

/** The job an event becomes: what `queue.add` is given, and what the spool keeps when it fails. */
export interface EventJob {
  name: string;
  data: CanonicalEvent;
  opts: { jobId: string } & Readonly<Record<string, unknown>>;
}

export interface EventJobOptions {
  /** Completed jobs are kept this long, so a redelivered id is still recognized (sender retries ~10 h). */
  dedupWindowHours: number;
  /** Attempts per event before it lands in the failed set. */
  attempts: number;
  /** First retry delay; later ones double, with jitter. */
  backoffDelayMs?: number;
}

export interface EventEnqueuerOptions extends EventJobOptions {
  queue: Queue;
  /**
   * REDIS_ACK_REPLICAS / REDIS_ACK_TIMEOUT_MS: resolve only once WAIT confirms the job reached
   * this many replicas, else throw ReplicasNotConfirmedError (→ 503, or with SPOOL_DIR the
   * spool). Off (0) unless given. `connection` is the one the queue writes through: WAIT counts
   * the writes of its own connection.
   */
  ackReplicas?: { replicas: number; timeoutMs: number; connection: RedisClient };
}

/**
 * Adds the canonical event as a job named after its action. The job id comes from the event id,
 * so BullMQ's atomic add makes a second delivery of the same id — also a concurrent one — a no-op.
 */
export function createEventEnqueuer(options: EventEnqueuerOptions): EnqueueEvent {
  const { queue, ackReplicas } = options;
  const jobOf = eventJobOf(options);
  const enqueue: EnqueueEvent = async (event) => {
    const { name, data, opts } = jobOf(event);
    const { jobId } = opts;
    await queue.add(name, data, opts);
    // add() answers the same for a new and an existing id; the stored data tells which delivery
    // wrote it. Only the log's outcome depends on this, never the status.
    // The delivery's meta (format, receivedAt to the millisecond, request id) is what makes the
    // stored data this delivery's own.
    if (event.meta === undefined) return { jobId, duplicate: false };
    const ours = JSON.stringify(event.meta);
    // One field, no Job built: this runs on every delivery.
    const client = await queue.backend.connection.client;
    const stored = await client.hget(queue.toKey(jobId), 'data');
    return { jobId, duplicate: stored !== null && !stored.includes(ours) };
  };
  if (ackReplicas === undefined || ackReplicas.replicas === 0) return enqueue;
  const { replicas, timeoutMs } = ackReplicas;
  // On a cluster, to the primary owning the queue's slot: the adds went there (wait-for-replicas.ts).
  const queueKey = queue.toKey('id');
  const wait = sharedReplicaWait(() =>
    waitForReplicas(ackReplicas.connection, replicas, timeoutMs, queueKey),
  );
  return async (event) => {
    const result = await enqueue(event);
    // WAIT covers every write this connection made before it — the add is one, its reply is in
    // (commands on one connection are answered in the order they were sent). A duplicate
    // writes too (BullMQ's add appends a "duplicated" entry to the events stream), later in the
    // replication stream than the original add: so a redelivery is also answered 200 only once
    // its job is on the replicas, whichever connection wrote it first. One WAIT serves every
    // delivery whose add was answered before it was sent (shared-replica-wait.ts).
    const confirmed = await wait();
    if (confirmed < replicas) throw new ReplicasNotConfirmedError(confirmed, replicas, timeoutMs);
    return result;
  };
}

/** The job of an event: named after its action, its id from the event id (jobIdForEvent). */
export function eventJobOf({
  dedupWindowHours,
  attempts,
  backoffDelayMs = 5000,
}: EventJobOptions): (event: CanonicalEvent) => EventJob {
  // The same for every job: made once, not per delivery (BullMQ copies it into each job's opts).
  const jobOptions = {
    attempts,
    backoff: { type: 'exponential', delay: backoffDelayMs, jitter: 0.5 },
    removeOnComplete: { age: dedupWindowHours * 3600 },
    removeOnFail: false,
  } as const;
  return (event) => ({
    name: event.action,
    data: event,
    opts: { ...jobOptions, jobId: jobIdForEvent(event.id) },
  });
}
