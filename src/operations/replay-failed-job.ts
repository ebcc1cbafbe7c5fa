import type { Job, Queue } from 'bullmq';

const PAGE = 500;

/** A snapshot of the failed set, taken before any job moves, so each is replayed once. */
export async function allFailedJobs(queue: Queue): Promise<Job[]> {
  const jobs: Job[] = [];
  for (let start = 0; ; start += PAGE) {
    const page = await queue.getFailed(start, start + PAGE - 1);
    jobs.push(...page);
    if (page.length < PAGE) return jobs;
  }
}

/**
 * One failed job back to waiting (BullMQ `job.retry('failed')`) with its attempts reset, so a
 * replay after a fix gets the whole retry budget again instead of failing for good at its first
 * error. The CLI's `replay` and `routes replay` and the console's replay buttons all call this.
 */
export async function replayFailedJob(job: Job): Promise<void> {
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
}
