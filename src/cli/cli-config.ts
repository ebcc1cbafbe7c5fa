import type { z } from 'zod';
import { EnvSchema, queueOnItsSlot, redisKeys, sentinelKeysTogether } from '../config';

/** The queue commands need the event queue's Redis and name, nothing else (no secrets). */
export const CliQueueConfig = EnvSchema.pick({ ...redisKeys, QUEUE_NAME: true })
  .superRefine(sentinelKeysTogether)
  .overwrite(queueOnItsSlot);
export type CliQueueConfig = z.infer<typeof CliQueueConfig>;

/**
 * `rejected` also queues events again (replay) and opens the store with its bounds; with
 * INSTITUTIONS_FILE, on each institution's queue.
 */
export const CliRejectedConfig = EnvSchema.pick({
  ...redisKeys,
  QUEUE_NAME: true,
  INSTITUTIONS_FILE: true,
  DEDUP_WINDOW_HOURS: true,
  JOB_ATTEMPTS: true,
  REJECTED_MAX_COUNT: true,
  REJECTED_MAX_AGE_HOURS: true,
})
  .superRefine(sentinelKeysTogether)
  .overwrite(queueOnItsSlot);
export type CliRejectedConfig = z.infer<typeof CliRejectedConfig>;
