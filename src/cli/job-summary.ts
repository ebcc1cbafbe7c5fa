import type { Job } from 'bullmq';

/** What the CLI says about one job, in the order people read it. */
export interface JobSummary {
  jobId: string;
  eventId: string | undefined;
  action: string;
  state: string;
  attemptsMade: number;
  attempts: number;
  failedReason: string | undefined;
  addedAt: string | undefined;
  processedAt: string | undefined;
  finishedAt: string | undefined;
}

export function jobSummary(job: Job, state: string): JobSummary {
  const data: unknown = job.data;
  const eventId =
    typeof data === 'object' && data !== null && typeof (data as { id?: unknown }).id === 'string'
      ? (data as { id: string }).id
      : undefined;
  return {
    jobId: job.id ?? '(no id)',
    eventId,
    action: job.name,
    state,
    attemptsMade: job.attemptsMade,
    attempts: job.opts.attempts ?? 1,
    failedReason: job.failedReason === '' ? undefined : job.failedReason,
    addedAt: isoOf(job.timestamp),
    processedAt: isoOf(job.processedOn),
    finishedAt: isoOf(job.finishedOn),
  };
}

function isoOf(epochMs: number | undefined): string | undefined {
  return epochMs === undefined || epochMs === 0 ? undefined : new Date(epochMs).toISOString();
}
