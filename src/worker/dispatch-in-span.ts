import { eventAttributes } from '../tracing/event-attributes';
import { inSpan } from '../tracing/in-span';
import type { Dispatch } from './handler-registry';
import { eventIdOf } from './handler-registry';

/**
 * One run of an event job as a span `event <action>`, under BullMQ's `process` span (which
 * continues the listener's trace): the event steps (routing's fan-out) and the handler (the API
 * client's calls, the records download) are its children. Each attempt is a run of its own.
 */
export function dispatchInSpan(dispatch: Dispatch, institution: string | undefined): Dispatch {
  return (job, signal) => {
    const attributes = eventAttributes({
      eventId: eventIdOf(job.data),
      action: job.name,
      institution: institution ?? institutionOf(job.data),
      attempt: job.attemptsMade + 1,
    });
    return inSpan(`event ${job.name}`, { attributes }, () => dispatch(job, signal));
  };
}

/** The institution code the event names (single-institution mode has no member code). */
function institutionOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !('institution' in data)) return undefined;
  const { institution } = data;
  if (typeof institution !== 'object' || institution === null || !('value' in institution)) {
    return undefined;
  }
  return typeof institution.value === 'string' ? institution.value : undefined;
}
