import { UnrecoverableError } from 'bullmq';
import { CanonicalEvent } from '../events/canonical-event';
import type { Dispatch } from './handler-registry';

/**
 * Work done for every event before its handler, whatever its action (routing's fan-out, composed
 * by src/processes/worker-process.ts). A step must be idempotent: when the handler fails and the
 * event job runs again, every step runs again.
 */
export type EventStep = (event: CanonicalEvent, jobId: string) => Promise<unknown>;

/**
 * Runs the steps in order, then the event's handler: a job_end still downloads its records, and
 * is routed too. A step that throws fails the run as a handler would (the failure policy decides).
 */
export function withEventSteps(dispatch: Dispatch, steps: readonly EventStep[]): Dispatch {
  if (steps.length === 0) return dispatch;
  return async (job, signal) => {
    // Job data crosses Redis: read it as the listener's schema says, not as trusted.
    const event = CanonicalEvent.safeParse(job.data);
    if (!event.success || job.id === undefined) {
      throw new UnrecoverableError('job data is not a canonical event: not routed');
    }
    for (const step of steps) await step(event.data, job.id);
    return dispatch(job, signal);
  };
}
