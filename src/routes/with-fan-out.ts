import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { CanonicalEvent } from '../events/canonical-event';
import type { FanOut } from './create-fan-out';

type Dispatch = (job: Job, signal?: AbortSignal) => Promise<unknown>;

/**
 * Runs the fan-out before the event's built-in handler: routing is independent of handlers (a
 * job_end still downloads its records, and is routed too). When the handler fails and the event
 * job runs again, the fan-out runs again and, being idempotent, adds nothing.
 */
export function withFanOut(dispatch: Dispatch, fanOut: FanOut): Dispatch {
  return async (job, signal) => {
    // Job data crosses Redis: read it as the listener's schema says, not as trusted.
    const event = CanonicalEvent.safeParse(job.data);
    if (!event.success || job.id === undefined) {
      throw new UnrecoverableError('job data is not a canonical event: not routed');
    }
    await fanOut(event.data, job.id);
    return dispatch(job, signal);
  };
}
