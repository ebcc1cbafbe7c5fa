import type { CanonicalEvent } from './canonical-event';

/** The fields every log line about an event carries (docs/logs.md): whose, what kind, which. */
export interface EventLineFields {
  /** The event's `institution.value`: the member's code with INSTITUTIONS_FILE (enqueue-for-institution.ts). */
  readonly institution: string | undefined;
  readonly action: string;
  /** The event's code (`event.value`: `LOAN_CREATED`, `JOB_END`), as the platform sent it. */
  readonly event: string | undefined;
  readonly eventId: string;
}

/** An event's line fields: identifiers the platform gives, never a field of its payload. */
export function eventLineFields(event: CanonicalEvent): EventLineFields {
  return {
    institution: event.institution?.value,
    action: event.action,
    event: event.event?.value,
    eventId: event.id,
  };
}
