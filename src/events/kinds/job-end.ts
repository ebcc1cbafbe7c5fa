import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind, SampleSeed } from './event-kind';
import { fieldRules } from './field-rules';
import { SAMPLE_BASE, SAMPLE_INSTITUTION } from './sample-parts';

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

/** A completed import, as docs/platform-shapes.md shows the instance. */
function jobEndSample({ id, time, n }: SampleSeed): Record<string, unknown> {
  const instanceId = `58710435${n}`;
  return {
    id,
    action: 'JOB_END',
    institution: SAMPLE_INSTITUTION,
    time,
    job_instance: {
      id: instanceId,
      name: 'Import MARC records - test event',
      submitted_by: { value: 'api', desc: 'API' },
      end_time: time,
      progress: 100,
      status: { value: 'COMPLETED_SUCCESS', desc: 'Completed Successfully' },
      status_date: `${time.slice(0, 10)}Z`,
      job_info: {
        id: 'S7781',
        name: 'Import MARC records',
        type: { value: 'SCHEDULED', desc: 'Scheduled' },
        category: { value: 'IMPORT', desc: 'Import' },
        link: `${SAMPLE_BASE}/conf/jobs/S7781`,
      },
      counter: [
        { type: { value: 'TOTAL_RECORDS_IMPORTED', desc: 'Total records imported' }, value: '3' },
      ],
      alert: [{ value: 'alert_general_success', desc: 'The job completed successfully.' }],
      link: `${SAMPLE_BASE}/conf/jobs/S7781/instances/${instanceId}`,
    },
  };
}

export const jobEnd: EventKind = {
  name: 'job_end',
  subject: 'job_instance',
  schema: JobEndSubject,
  // A job instance names no patron (`submitted_by` is staff or `api`).
  patron: false,
  personal: [],
  // The instance and its job; not `submitted_by` (a member of staff, when not `api`).
  safe: [
    'id',
    'name',
    'external_id',
    'submit_time',
    'start_time',
    'end_time',
    'progress',
    'status',
    'status_date',
    'job_info',
    'counter',
    'alert',
    'action',
    'link',
  ],
  identifiers: {
    thin: ['id', 'job_info.id'],
    history: { jobInstanceIds: ['id'] },
  },
  samples: {
    job_end: jobEndSample,
    // spec §6.2 guarantees no more than the instance's id and name.
    job_end_minimal: ({ id, time, n }) => ({
      id,
      action: 'JOB_END',
      time,
      job_instance: { id: `58710435${n}`, name: 'Test job' },
    }),
  },
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
