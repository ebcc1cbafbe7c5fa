import { z } from 'zod';

/**
 * Response schemas for the rows whose answer the worker reads (zod at the boundary). They check
 * only the fields a reader uses — `status`, `name`, `link`, `job_info` (id, name, type, category),
 * `counter` and `alert` — as loose objects: every other field (`action`, `submitted_by`, times,
 * `progress`…) passes through untouched in whatever shape the platform sends, so a field nobody
 * reads can never fail a call (docs/platform-shapes.md, "Job instance"; the documentation's own
 * sample has `"action": ["string"]`).
 */

/** A code field: `{"value": "IMPORT", "desc": "Import"}`; only `value` is read. */
export const CodeField = z.looseObject({ value: z.string() });
export type CodeField = z.infer<typeof CodeField>;

/** Counter values are strings, as the platform sends them. */
export const JobInstanceCounter = z.looseObject({
  type: CodeField,
  value: z.string(),
});
export type JobInstanceCounter = z.infer<typeof JobInstanceCounter>;

export const JobInfo = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  type: CodeField.optional(),
  category: CodeField.optional(),
});
export type JobInfo = z.infer<typeof JobInfo>;

/** `GET /conf/jobs/{job_id}/instances/{instance_id}` (spec §4.3). */
export const JobInstance = z.looseObject({
  name: z.string().optional(),
  status: CodeField,
  job_info: JobInfo.optional(),
  counter: z.array(JobInstanceCounter).optional(),
  alert: z.array(CodeField).optional(),
  link: z.string().optional(),
});
export type JobInstance = z.infer<typeof JobInstance>;
