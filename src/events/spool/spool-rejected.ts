import { isQueueUnavailable } from '../queue-unavailable-error';
import { rejectedRefOf } from '../rejected-store';
import type { RejectedStore } from '../rejected-store';
import type { Spool } from './create-spool';

/**
 * The rejected store, whose `keep` falls back to the spool when Redis does not answer: a signed
 * delivery refused 4xx is never retried by the sender, so it is kept on disk and moved into the
 * store by the drain. The ref is the one the store would have given (the body's digest).
 */
export function spoolRejected(
  store: RejectedStore,
  spool: Spool,
  onSpooled: () => void,
): RejectedStore {
  return {
    ...store,
    keep: async (delivery) => {
      if (spool.isEmpty()) {
        try {
          return await store.keep(delivery);
        } catch (error) {
          if (!isQueueUnavailable(error)) throw error;
        }
      }
      await spool.append({
        kind: 'rejected',
        spooledAt: Date.now(),
        body: delivery.body.toString('base64'),
        ...(delivery.contentType === undefined ? {} : { contentType: delivery.contentType }),
        reason: delivery.reason,
        status: delivery.status,
        receivedAt: delivery.receivedAt.toISOString(),
        requestId: delivery.requestId,
        ...(delivery.eventId === undefined ? {} : { eventId: delivery.eventId }),
        ...(delivery.institution === undefined ? {} : { institution: delivery.institution }),
      });
      onSpooled();
      return { ref: rejectedRefOf(delivery.body), evicted: 0 };
    },
  };
}
