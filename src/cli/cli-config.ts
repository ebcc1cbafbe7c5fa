import type { z } from 'zod';
import { EnvSchema } from '../config';

/** The queue commands need the event queue's Redis and name, nothing else (no secrets). */
export const CliQueueConfig = EnvSchema.pick({ REDIS_URL: true, QUEUE_NAME: true });
export type CliQueueConfig = z.infer<typeof CliQueueConfig>;
