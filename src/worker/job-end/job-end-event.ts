import { z } from 'zod';
import { CanonicalEvent } from '../../events/canonical-event';

/**
 * The job_end payload the worker needs (spec §6.2): the instance's id at least. Everything else
 * is optional because the spec guarantees no more than `id` and `name`; the instance is fetched
 * anyway, so the event's own copy of status and counters is never trusted.
 */
export const JobEndEvent = CanonicalEvent.extend({
  job_instance: z.looseObject({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an instance id (letters, digits, _ and -)'),
    name: z.string().optional(),
    job_info: z.looseObject({ id: z.string().optional(), name: z.string().optional() }).optional(),
    link: z.string().optional(),
  }),
});
export type JobEndEvent = z.infer<typeof JobEndEvent>;
