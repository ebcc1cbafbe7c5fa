import { eventAttributes } from '../tracing/event-attributes';
import { inSpan } from '../tracing/in-span';
import type { RunStage } from './event-run';

/**
 * One run of an event job as a span `event <action>`, under BullMQ's `process` span (which
 * continues the listener's trace): the run's later stages (routing's fan-out) and the handler (the
 * API client's calls, the records download) are its children. Each attempt is a run of its own.
 */
export function spanStage(institution: string | undefined): RunStage {
  return (run, next) => {
    const attributes = eventAttributes({
      eventId: run.eventId,
      action: run.job.name,
      // Single-institution mode has no member code: the code the event names.
      institution: institution ?? run.event?.institution?.value,
      attempt: run.job.attemptsMade + 1,
    });
    return inSpan(`event ${run.job.name}`, { attributes }, next);
  };
}
