import type { Job } from 'bullmq';
import type { CanonicalEvent } from '../events/canonical-event';
import { safeParseCanonicalEvent } from '../events/canonical-event';
import type { Logger } from '../logger';
import { isRecord } from '../is-record';
import type { EventLineFields } from '../events/event-line-fields';

/** What a handler gets besides its payload. */
export interface HandlerContext {
  readonly job: Job;
  /** Aborted when the worker cancels the job (shutdown past its deadline). */
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
}

/**
 * What the action's handler made of the job's data: its typed call (the payload already checked
 * by the handler's own schema, which extends the canonical event's), why it refused the data, or
 * no handler for the action.
 */
export type PayloadRead =
  | {
      readonly kind: 'handler';
      readonly event: CanonicalEvent;
      readonly handle: (context: HandlerContext) => Promise<unknown>;
    }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'none' };

/** Reads a job's data with the handler of its action (the handler registry). */
export type ReadPayload = (action: string, data: unknown) => PayloadRead;

/**
 * One run of an event's job, read once at its start (the job's data checked by one schema) and
 * handed down the run's stages (event-run-stages.ts): none of them reads the job's data again.
 */
export interface EventRun {
  readonly job: Job;
  readonly jobId: string | undefined;
  /** The job's name lower-cased: the canonical action (the listener names each job by it). */
  readonly action: string;
  /** The job data's `id`, read without a schema: for log lines, also of a job that is no event. */
  readonly eventId: string | undefined;
  /** The job's data as the canonical event; undefined when it is none (not routed, not recorded). */
  readonly event: CanonicalEvent | undefined;
  readonly payload: PayloadRead;
  readonly signal: AbortSignal | undefined;
  /** What the run's steps said of it, for its end line (event-step.ts, run-end-stage.ts). */
  readonly notes: RunNotes;
}

/** Filled in by the steps as they run: empty when they did not run in this run. */
export interface RunNotes {
  routes?: readonly string[];
}

/** Work around the rest of a run: `next` runs the later stages and the handler. */
export type RunStage = (run: EventRun, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * The run of a job: its data checked once, by its handler's schema where the action has one (the
 * canonical event's too), else by the canonical event's. Only data the handler refuses is read a
 * second time, to know whether it is an event at all.
 */
export function readEventRun(
  job: Job,
  signal: AbortSignal | undefined,
  readPayload: ReadPayload,
): EventRun {
  const action = job.name.toLowerCase();
  const payload = readPayload(action, job.data);
  const event = payload.kind === 'handler' ? payload.event : canonicalOrUndefined(job.data);
  return {
    job,
    jobId: job.id,
    action,
    eventId: eventIdOf(job.data),
    event,
    payload,
    signal,
    notes: {},
  };
}

function canonicalOrUndefined(data: unknown): CanonicalEvent | undefined {
  const parsed = safeParseCanonicalEvent(data);
  return parsed.success ? parsed.data : undefined;
}

/** The event id for log lines, read defensively: the payload has not been checked yet. */
function eventIdOf(data: unknown): string | undefined {
  return isRecord(data) && typeof data.id === 'string' ? data.id : undefined;
}

/** `{ value }`'s value when it is a string: a code read defensively, as eventIdOf reads the id. */
function codeOf(data: unknown, key: 'institution' | 'event'): string | undefined {
  const field = isRecord(data) ? data[key] : undefined;
  return isRecord(field) && typeof field.value === 'string' ? field.value : undefined;
}

/**
 * A job's event fields for a line about it (docs/logs.md: institution, action, event, eventId),
 * read defensively from data not yet checked: what is not there is left out.
 */
export function jobEventFields(job: {
  readonly name: string;
  readonly data: unknown;
}): Omit<EventLineFields, 'eventId'> & { eventId: string | undefined } {
  return {
    institution: codeOf(job.data, 'institution'),
    action: job.name,
    event: codeOf(job.data, 'event'),
    eventId: eventIdOf(job.data),
  };
}
