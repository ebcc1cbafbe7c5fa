import type { Job, Queue } from 'bullmq';
import { jobIdForEvent } from '../events/job-id-for-event';

/** A job by its BullMQ id (`evt-…`) or by the event id the platform sent (spec §6.2 `id`). */
export async function findJob(queue: Queue, id: string): Promise<Job | undefined> {
  const byJobId = await queue.getJob(id);
  if (byJobId) return byJobId;
  return queue.getJob(jobIdForEvent(id));
}
