import type { Queue } from 'bullmq';
import type { Logger } from '../../logger';
import { isQueueUnavailable } from '../queue-unavailable-error';
import type { RejectedStore } from '../rejected-store';
import type { DeliverSpooled } from './create-spool';
import { errField } from '../../err-field';

export interface DeliverSpooledOptions {
  /** The queue a spooled job names (the listener's, or one per institution). */
  queueOf: (name: string) => Queue;
  /** The store itself, not its spooling wrapper: the drain must not spool again. */
  rejected: RejectedStore;
  logger: Logger;
}

/**
 * Moves one spooled entry where it would have gone: a job is added with the same name, data and
 * options — the same job id, so one already queued (a delivery that was in fact added before the
 * timeout, or a drain cut short) is a no-op — and a refused delivery goes to the rejected store.
 * A queue that does not answer stops the drain (thrown); any other failure is this entry's alone:
 * logged with its ids and passed over.
 */
export function createDeliverSpooled({
  queueOf,
  rejected,
  logger,
}: DeliverSpooledOptions): DeliverSpooled {
  return async (entry) => {
    try {
      if (entry.kind === 'job') {
        await queueOf(entry.queue).add(entry.name, entry.data, entry.opts);
        return;
      }
      await rejected.keep({
        body: Buffer.from(entry.body, 'base64'),
        contentType: entry.contentType,
        reason: entry.reason,
        status: entry.status,
        receivedAt: new Date(entry.receivedAt),
        requestId: entry.requestId,
        eventId: entry.eventId,
        institution: entry.institution,
      });
    } catch (error) {
      if (isQueueUnavailable(error)) throw error;
      const ids =
        entry.kind === 'job'
          ? { queueJobId: entry.jobId, eventId: entry.data.id }
          : { requestId: entry.requestId, eventId: entry.eventId };
      logger.error(
        { err: errField(error), ...ids },
        'spooled entry could not be moved; passed over',
      );
    }
  };
}
