import type { Queue } from 'bullmq';

/**
 * Deliveries waiting in a route queue, paused included. BullMQ counts prioritized jobs apart from
 * `wait` (getWaitingCount leaves them out), and a consortium's route jobs all carry a priority
 * (fair-priorities.ts): both together, so a queue full of work never reads as empty.
 */
export async function routeWaitingCount(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('wait', 'prioritized');
  return (counts.wait ?? 0) + (counts.prioritized ?? 0);
}
