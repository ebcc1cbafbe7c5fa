import type { EventKind } from './webhook-profile';
import { jobEndEvent, sampleEvent } from './sample-events';
import type { EventBase, WebhookEvent } from './sample-events';

export interface EventFactoryOptions {
  readonly institution: { readonly code: string; readonly name: string };
  readonly now: () => Date;
  readonly random: () => number;
}

export interface EventFactory {
  jobEnd(jobInstance: Record<string, unknown>): WebhookEvent;
  sample(kind: Exclude<EventKind, 'job_end'>): WebhookEvent;
}

const FIRST_EVENT_ID = 3219421620000561;

/** Builds events with the common part of spec §6.2 (id, time) and the institution code. */
export function createEventFactory({
  institution,
  now,
  random,
}: EventFactoryOptions): EventFactory {
  let sequence = 0;
  const base = (): EventBase => ({
    id: String(FIRST_EVENT_ID + 1000 * sequence++),
    time: now().toISOString(),
    institution: { value: institution.code, desc: institution.name },
  });
  return {
    jobEnd: (jobInstance) => jobEndEvent(base(), jobInstance),
    sample: (kind) => sampleEvent(kind, base(), random),
  };
}
