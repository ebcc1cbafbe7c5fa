import type { Logger } from '../../logger';
import { withTimeout } from '../../with-timeout';
import type { EnqueueEvent, EventJob } from '../enqueue-event';
import type { CanonicalEvent } from '../canonical-event';
import { QueueUnavailableError, isQueueUnavailable } from '../queue-unavailable-error';
import { ReplicasNotConfirmedError } from '../replicas-not-confirmed-error';
import type { Spool } from './create-spool';
import { errField } from '../../err-field';
import type { ErrField } from '../../err-field';

export interface SpoolOnFailureOptions {
  enqueue: EnqueueEvent;
  jobOf: (event: CanonicalEvent) => EventJob;
  queueName: string;
  spool: Spool;
  /** The enqueue bound (src/events/enqueue-bound-ms.ts): past it, the event is spooled. */
  boundMs: number;
  /** False while the connection is not ready: the event is spooled without waiting for the bound. */
  connected: () => boolean;
  /** Called after each entry spooled: the drainer's wake. */
  onSpooled: () => void;
  logger: Logger;
}

/**
 * The enqueue, or the spool when the queue does not answer within its bound (or WAIT does not
 * confirm the replicas): the event's job is written to disk as it would have been added, and the
 * delivery is answered 200 `spooled`. While anything is spooled, new events go behind it rather
 * than to the queue, so the queue gets them in the order they arrived.
 */
export function spoolOnFailure(options: SpoolOnFailureOptions): EnqueueEvent {
  const { enqueue, spool, boundMs, logger } = options;
  const timedOut = () =>
    new QueueUnavailableError(`enqueue did not answer within ${String(boundMs)} ms`);
  // Said once per outage, whether an enqueue failed or the connection was already known to be
  // away (the enqueues in flight when Redis goes all fail at once, and each delivery's own line
  // says it was spooled anyway). Said again after an enqueue went through.
  let said = false;
  const sayOnce = (fields: { err?: ErrField; eventId: string }, reason: SpoolReason): void => {
    if (!said) logger.warn({ ...fields, reason }, SPOOLING_BECAUSE[reason]);
    said = true;
  };
  return async (event) => {
    // Never a wait on a connection that is away.
    if (!options.connected()) {
      sayOnce({ eventId: event.id }, 'queue_unavailable');
      return spoolEvent(options, event);
    }
    // Behind what is spooled: the queue gets events in the order they arrived.
    if (!spool.isEmpty()) return spoolEvent(options, event);
    try {
      const queued = await withTimeout(enqueue(event), boundMs, timedOut);
      said = false;
      return queued;
    } catch (error) {
      const reason = spoolReason(error);
      if (reason === undefined) throw error;
      sayOnce({ err: errField(error), eventId: event.id }, reason);
      return spoolEvent(options, event);
    }
  };
}

const SPOOLING_BECAUSE = {
  replicas_not_confirmed: 'replicas did not confirm the write: spooling events to disk',
  queue_unavailable: 'queue unavailable: spooling events to disk',
} as const;

/**
 * Why an enqueue's failure sends the event to the spool, or undefined when it must not. With
 * REDIS_ACK_REPLICAS the job is on the primary already: the spool keeps it until a drain sees it
 * replicated.
 */
type SpoolReason = keyof typeof SPOOLING_BECAUSE;

function spoolReason(error: unknown): SpoolReason | undefined {
  if (error instanceof ReplicasNotConfirmedError) return 'replicas_not_confirmed';
  if (isQueueUnavailable(error)) return 'queue_unavailable';
  return undefined;
}

async function spoolEvent(
  { jobOf, queueName, spool, onSpooled }: SpoolOnFailureOptions,
  event: CanonicalEvent,
): Promise<{ jobId: string; duplicate: boolean; spooled: boolean }> {
  const { name, data, opts } = jobOf(event);
  await spool.append({
    kind: 'job',
    spooledAt: Date.now(),
    queue: queueName,
    name,
    jobId: opts.jobId,
    data,
    opts,
  });
  onSpooled();
  return { jobId: opts.jobId, duplicate: false, spooled: true };
}
