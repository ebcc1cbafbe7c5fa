import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';

/**
 * job_end's subject, `job_instance` (spec §6.2: at least its own `id` and `name`), shaped as the
 * instance that GET /conf/jobs/{job_id}/instances/{instance_id} returns (spec §4.3).
 */
export const JobEndSubject = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  status: CodeValue.optional(),
  progress: z.number().optional(),
  job_info: z.looseObject({ id: z.string().optional(), name: z.string().optional() }).optional(),
  counter: z.array(z.looseObject({ type: CodeValue.optional() })).optional(),
  link: z.string().optional(),
});
export type JobEndSubject = z.infer<typeof JobEndSubject>;

const typed = fieldRules({ codes: ['type'] });

export const jobEnd: EventKind = {
  name: 'job_end',
  subject: 'job_instance',
  schema: JobEndSubject,
  // A job instance names no patron (`submitted_by` is staff or `api`).
  personal: [],
  rules: fieldRules({
    codes: ['submitted_by', 'status', 'alert'],
    numbers: ['progress'],
    // An id sent as a number is the same id: the worker reads it as a string.
    strings: ['id'],
    lists: ['counter', 'alert', 'action'],
    objects: {
      job_info: fieldRules({ codes: ['type', 'category'], strings: ['id'] }),
      // A counter's value is a string in the platform's JSON ("25").
      counter: fieldRules({ codes: ['type'], strings: ['value'] }),
      action: typed,
    },
  }),
};
