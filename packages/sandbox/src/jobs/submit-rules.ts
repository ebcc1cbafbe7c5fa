import { badRequest } from '../sandbox-error';
import { SUBMITTABLE_SCHEDULED_CATEGORIES } from './job-catalog';
import type { JobDefinition } from './job-catalog';
import type { JobStore } from './job-store';

const MAX_RUNNING_API_JOBS = 3;
const MAX_RUNS_PER_HOUR = 5;
const HOUR_MS = 3_600_000;

export interface SubmitRequest {
  readonly op: unknown;
  readonly body: unknown;
}

/**
 * The job submit checks (spec §4.3), in this order — cheapest and most specific first, the
 * thresholds last so a bad request never reports a threshold:
 * 1. op missing → 402220; op other than `run` → 402221;
 * 2. body missing or empty → 402228 (the job object is required);
 * 3. type OTHER → 402248 (cannot be submitted); a SCHEDULED job outside the rule 3 families →
 *    402249; the PUBLISHING family's republish action (rule 3 excludes it) → 402248, its family
 *    being valid; more than one task → 402231 (rule 4);
 * 4. a run of the same job still running → 60347 (overlap);
 * 5. 5 runs of this job started in the previous hour, by whoever started them → 402223 (rule 2);
 * 6. 3 API-started runs running → 402222 (rule 1; §8 "at most 3 ... at the same time").
 * The job id itself (402215/402216) is checked by the route before this.
 */
export function checkSubmit(
  store: JobStore,
  job: JobDefinition,
  request: SubmitRequest,
  now: Date,
): void {
  if (request.op === undefined || request.op === '') {
    throw badRequest('402220', 'Operation not given: op');
  }
  if (request.op !== 'run') {
    throw badRequest('402221', `Operation not supported: ${String(request.op)}`);
  }
  if (isEmptyBody(request.body)) {
    throw badRequest('402228', 'Mandatory parameter missing from input: job');
  }
  if (job.type === 'OTHER') {
    throw badRequest('402248', `Scheduled job cannot be submitted: ${job.id}`);
  }
  if (job.type === 'SCHEDULED' && !SUBMITTABLE_SCHEDULED_CATEGORIES.has(job.category)) {
    throw badRequest('402249', `Invalid scheduled job category: ${job.category}`);
  }
  if (job.type === 'SCHEDULED' && job.republish === true) {
    throw badRequest(
      '402248',
      `Scheduled job cannot be submitted: ${job.id} is a republish action`,
    );
  }
  if (job.taskCount > 1) {
    throw badRequest('402231', `Job consists of more than one task: ${job.id}`);
  }
  const instances = store.instances();
  if (instances.some((instance) => instance.job.id === job.id && !instance.end)) {
    throw badRequest('60347', `Job overlaps a running job: ${job.id}`);
  }
  const hourAgo = now.getTime() - HOUR_MS;
  const recentRuns = instances.filter(
    (instance) => instance.job.id === job.id && instance.submitTime.getTime() > hourAgo,
  ).length;
  if (recentRuns >= MAX_RUNS_PER_HOUR) {
    throw badRequest(
      '402223',
      `Execution threshold reached: ${String(MAX_RUNS_PER_HOUR)} runs of ${job.id} in the previous hour`,
    );
  }
  const running = instances.filter((instance) => instance.apiStarted && !instance.end).length;
  if (running >= MAX_RUNNING_API_JOBS) {
    throw badRequest(
      '402222',
      `Execution threshold reached: ${String(MAX_RUNNING_API_JOBS)} API jobs running`,
    );
  }
}

function isEmptyBody(body: unknown): boolean {
  if (body === undefined || body === null) return true;
  if (typeof body === 'string') return body.trim() === '';
  if (typeof body === 'object') return Object.keys(body).length === 0;
  return false;
}
