import { Redis } from 'ioredis';
import { jobIdForEvent } from '../../../../src/events/job-id-for-event';
import type { Address } from './redis-ha-cluster';

export interface JobsOn {
  /** Event ids whose job is not on that server. */
  missing: string[];
  /** Event ids whose job is in the completed set. */
  completed: string[];
}

/** Looks each event's job up directly on one server (BullMQ's default `bull` prefix). */
export async function jobsOn(server: Address, queueName: string, ids: string[]): Promise<JobsOn> {
  const redis = new Redis({ ...server, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    const key = (id: string): string => `bull:${queueName}:${jobIdForEvent(id)}`;
    const exists = await Promise.all(ids.map((id) => redis.exists(key(id))));
    const scores = await Promise.all(
      ids.map((id) => redis.zscore(`bull:${queueName}:completed`, jobIdForEvent(id))),
    );
    return {
      missing: ids.filter((_, index) => exists[index] === 0),
      completed: ids.filter((_, index) => scores[index] !== null),
    };
  } finally {
    redis.disconnect();
  }
}
