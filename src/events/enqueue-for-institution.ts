import type { EnqueueEvent } from './enqueue-event';
import { RefusedDeliveryError } from './refused-delivery-error';

/**
 * The enqueue of one institution's path. A body that names another institution was signed with
 * this institution's secret but speaks for another member: it is refused (a RefusedDeliveryError,
 * which the listener answers 4xx and keeps as rejected) and never queued where the other member's
 * key would act on it. A body without an institution takes the path's, so the worker knows whose
 * key and folder to use.
 */
export function enqueueForInstitution(code: string, enqueue: EnqueueEvent): EnqueueEvent {
  return async (event) => {
    const named = event.institution?.value;
    if (named !== undefined && named !== code) {
      throw new RefusedDeliveryError(
        'wrong_institution',
        `the event's institution is not ${code}, the institution of this path`,
      );
    }
    if (named === code) return enqueue(event);
    return enqueue({ ...event, institution: { ...event.institution, value: code } });
  };
}
