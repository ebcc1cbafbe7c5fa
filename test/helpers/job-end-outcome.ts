import type { CanonicalEvent } from '../../src/events/canonical-event';
import type { OutcomeInput } from '../../src/history/create-history-recorder';
import { jobEndHandlerEntry } from '../../src/worker/job-end/job-end-handler-entry';

/** A job_end's outcome as the worker records it: its subject read by the job_end entry. */
export function jobEndOutcome(
  event: CanonicalEvent,
  outcome: Omit<OutcomeInput, 'event' | 'subject'>,
): OutcomeInput {
  const subject = jobEndHandlerEntry.subjectOf?.(event);
  return { event, ...(subject === undefined ? {} : { subject }), ...outcome };
}
