import type { CanonicalEvent } from '../../events/canonical-event';
import { normalizeEvent } from '../../events/normalize-event';

/** The instance as the instance list returns it (spec §4.3): its id, and what the platform sent. */
export interface ListedInstance {
  readonly id: string;
  readonly [field: string]: unknown;
}

export interface RecoveredJobEndOptions {
  /** The institution's code (its events' `institution.value`); none for an unnamed single one. */
  readonly institution: string | undefined;
  /** When the reconciliation made it: the event's `meta.receivedAt`. */
  readonly now: Date;
  /** The run that found it, for `meta.requestId` (log lines and the history name it). */
  readonly runId: string;
}

/** The event id of a recovered job_end: never one of the platform's (those are digits). */
export function recoveredEventId(instanceId: string): string {
  return `recovered-${instanceId}`;
}

/**
 * The job_end the platform would have sent for a finished instance (spec §6.2: `id`, `action`,
 * `time`, the institution, and `job_instance` — the instance as the API returns it), normalized as
 * the listener normalizes a delivery. The mark is the listener's own part, `meta.recovered`:
 * the platform's fields stay as the platform shapes them, and the history keeps the meta with
 * the body. The time is the instance's end, the moment the platform would have sent it.
 */
export function recoveredJobEnd(
  instance: ListedInstance,
  { institution, now, runId }: RecoveredJobEndOptions,
): CanonicalEvent {
  const endTime = typeof instance.end_time === 'string' ? instance.end_time : now.toISOString();
  return normalizeEvent(
    {
      id: recoveredEventId(instance.id),
      action: 'JOB_END',
      time: endTime,
      ...(institution === undefined ? {} : { institution: { value: institution } }),
      job_instance: instance,
    },
    { format: 'json', receivedAt: now.toISOString(), requestId: runId, recovered: true },
  );
}
