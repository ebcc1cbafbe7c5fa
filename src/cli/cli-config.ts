import type { z } from 'zod';
import { EnvSchema, redisKeys, sentinelKeysTogether } from '../config';

/** The queue commands need the event queue's Redis and name, nothing else (no secrets). */
export const CliQueueConfig = EnvSchema.pick({ ...redisKeys, QUEUE_NAME: true }).superRefine(
  sentinelKeysTogether,
);
export type CliQueueConfig = z.infer<typeof CliQueueConfig>;
