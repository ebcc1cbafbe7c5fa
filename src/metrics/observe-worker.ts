import type { Job, Worker } from 'bullmq';
import type { WorkerMetrics } from './worker-metrics';

/**
 * Counts a BullMQ worker's jobs from its own events, so the processor needs no metrics code:
 * `completed` → processed, `failed` → failed (every failed attempt, retried or not), each with
 * the attempt's duration. API calls and the remaining budget come from the client's
 * `onRemaining` (see docs/operations.md), not from here.
 */
export function observeWorker(worker: Worker, metrics: WorkerMetrics): void {
  worker.on('completed', (job: Job) => {
    metrics.jobProcessed(job.name, secondsOf(job) ?? 0);
  });
  worker.on('failed', (job: Job | undefined) => {
    if (job) metrics.jobFailed(job.name, secondsOf(job));
  });
}

function secondsOf(job: Job): number | undefined {
  const { processedOn, finishedOn } = job;
  if (processedOn === undefined || finishedOn === undefined) return undefined;
  return Math.max(0, finishedOn - processedOn) / 1000;
}
