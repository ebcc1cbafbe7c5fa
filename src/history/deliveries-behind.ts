import { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';

/** Whether the deliveries are behind, read from the worker's event queues. */
export interface DeliveriesBehind {
  readonly busy: () => Promise<boolean>;
  readonly close: () => Promise<void>;
}

/**
 * Whether the deliveries are behind: the event queues' waiting jobs, more than the worker takes at
 * once (`concurrency`). A burst then has the CPU to itself and the history catches up after it
 * (docs/history.md).
 */
export function deliveriesBehind(
  connection: RedisClient,
  eventQueues: readonly string[],
  concurrency: number,
): DeliveriesBehind {
  const queues = eventQueues.map((name) => new Queue(name, { connection }));
  for (const queue of queues) queue.on('error', () => undefined);
  return {
    busy: async () => {
      const waiting = await Promise.all(queues.map((queue) => queue.getWaitingCount()));
      return waiting.reduce((sum, n) => sum + n, 0) >= concurrency;
    },
    close: async () => {
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}
