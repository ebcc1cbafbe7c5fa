import { z } from 'zod';

/**
 * Response schemas for the rows whose answer the worker reads (CONVENTIONS 3: zod at the boundary,
 * client responses where typed). Loose objects: fields the platform adds pass through untouched,
 * and only what a reader relies on is required (docs/platform-shapes.md, "Job instance").
 */

/** A code field: `{"value": "IMPORT", "desc": "Import"}`. */
export const CodeField = z.looseObject({ value: z.string(), desc: z.string().optional() });
export type CodeField = z.infer<typeof CodeField>;

/** Counter values are strings, as the platform sends them. */
export const JobInstanceCounter = z.looseObject({
  type: CodeField,
  value: z.string(),
});
export type JobInstanceCounter = z.infer<typeof JobInstanceCounter>;

export const JobInfo = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  type: CodeField.optional(),
  category: CodeField.optional(),
  link: z.string().optional(),
});
export type JobInfo = z.infer<typeof JobInfo>;

/** `GET /conf/jobs/{job_id}/instances/{instance_id}` (spec §4.3). */
export const JobInstance = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  submitted_by: CodeField.optional(),
  submit_time: z.string().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
  progress: z.number().optional(),
  status: CodeField,
  status_date: z.string().optional(),
  job_info: JobInfo.optional(),
  counter: z.array(JobInstanceCounter).optional(),
  alert: z.array(CodeField).optional(),
  action: z.array(z.looseObject({ type: CodeField, link: z.string().optional() })).optional(),
  link: z.string().optional(),
});
export type JobInstance = z.infer<typeof JobInstance>;
