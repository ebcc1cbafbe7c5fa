import type { Queue } from 'bullmq';

/** A route queue's deliveries by state now, as the CLI's `routes` and the console show them. */
export interface RouteQueueCounts {
  /** Waiting, prioritized included (route-waiting-count.ts says why). */
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  /** Failed for good and kept: what `routes replay` takes back. */
  readonly failed: number;
}

/** One read of a route queue's counts. */
export async function routeQueueCounts(queue: Queue): Promise<RouteQueueCounts> {
  const counts = await queue.getJobCounts('wait', 'prioritized', 'active', 'delayed', 'failed');
  return {
    waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    failed: counts.failed ?? 0,
  };
}
