import type { RedisClient } from '../../redis/redis-client';

/**
 * Which instances' job_end has been taken up, whoever brought it: a webhook (its event id) or the
 * reconciliation (made from the instance). One key per instance of one event queue (so per
 * institution), holding the BullMQ job id that took it, for as long as a redelivery can come.
 */
export interface JobEndSeen {
  /**
   * Claims the instance's job_end for `jobId`: true when it is this job's to process — the first
   * claim, or the same job again (a retry, a run taken over after a stall, a replay).
   */
  claim(instanceId: string, jobId: string): Promise<boolean>;
  /** Whether each instance's job_end was claimed already, in one round trip. */
  seen(instanceIds: readonly string[]): Promise<boolean[]>;
}

export interface JobEndSeenOptions {
  readonly redis: RedisClient;
  /** The institution's event queue (QUEUE_NAME, or QUEUE_NAME-inst-<code>). */
  readonly queueName: string;
  /**
   * DEDUP_WINDOW_HOURS in seconds: past the sender's retry window (about 10 h after the first
   * attempt), and as long as the listener keeps a completed job to recognise a redelivered id.
   */
  readonly ttlSeconds: number;
}

/** The key of one instance's claim: beside its event queue's keys, never a secret in it. */
export function jobEndSeenKey(queueName: string, instanceId: string): string {
  return `${queueName}:job-end-seen:${instanceId}`;
}

export function createJobEndSeen({ redis, queueName, ttlSeconds }: JobEndSeenOptions): JobEndSeen {
  const setIfAbsent = async (key: string, jobId: string): Promise<boolean> =>
    (await redis.set(key, jobId, 'EX', ttlSeconds, 'NX')) === 'OK';
  return {
    async claim(instanceId, jobId) {
      const key = jobEndSeenKey(queueName, instanceId);
      if (await setIfAbsent(key, jobId)) return true;
      const holder = await redis.get(key);
      // Expired between the two commands: the claim is free again.
      return holder === null ? setIfAbsent(key, jobId) : holder === jobId;
    },
    async seen(instanceIds) {
      if (instanceIds.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const id of instanceIds) pipeline.exists(jobEndSeenKey(queueName, id));
      const answers = (await pipeline.exec()) ?? [];
      return instanceIds.map((_, index) => {
        const [error, count] = answers[index] ?? [new Error('no answer'), 0];
        if (error) throw error;
        return count === 1;
      });
    },
  };
}
