import { z } from 'zod';
import { CanonicalEvent } from '../../events/canonical-event';
import { JobEndSubject } from '../../events/kinds/job-end';

/**
 * The job_end payload the worker needs (spec §6.2): the instance's id at least. Everything else
 * is optional because the spec guarantees no more than `id` and `name`; the instance is fetched
 * anyway, so the event's own copy of status and counters is never trusted.
 */
export const JobEndEvent = CanonicalEvent.extend({
  // The kind's own subject schema (events/kinds/job-end.ts), with the id the worker puts in a
  // path: a safe instance id.
  job_instance: JobEndSubject.extend({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an instance id (letters, digits, _ and -)'),
  }),
});
export type JobEndEvent = z.infer<typeof JobEndEvent>;
