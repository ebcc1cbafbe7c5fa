import type { RedisClient } from '../redis/redis-client';
import type { ExpectedEventState } from '../metrics/expected-event-state';
import { ruleName } from './expected-events-file';
import type { ExpectedEventsOfQueue } from './expected-events-watch';
import { expectedLastKey, expectedSinceKey } from './expected-events-watch';

/**
 * Every rule's state, read from Redis (two reads per institution): what
 * `svcws_expected_event_age_seconds` exports, and what the console's overview can show.
 */
export async function readExpectedEvents(
  redis: RedisClient,
  queues: readonly ExpectedEventsOfQueue[],
  now: Date = new Date(),
): Promise<ExpectedEventState[]> {
  const states: ExpectedEventState[] = [];
  for (const queue of queues) {
    if (queue.rules.length === 0) continue;
    const names = queue.rules.map(ruleName);
    const [last, since] = await Promise.all([
      redis.hmget(expectedLastKey(queue.queueName), ...names),
      redis.hmget(expectedSinceKey(queue.queueName), ...names),
    ]);
    queue.rules.forEach((rule, index) => {
      const lastMs = Number(last[index] ?? Number.NaN);
      const sinceMs = Number(since[index] ?? now.getTime());
      const from = Number.isFinite(lastMs) ? lastMs : sinceMs;
      const ageSeconds = Math.max(0, (now.getTime() - from) / 1000);
      states.push({
        institution: queue.institution,
        rule: names[index] ?? '',
        everyHours: rule.everyHours,
        lastSeenAt: Number.isFinite(lastMs) ? new Date(lastMs) : undefined,
        ageSeconds,
        late: ageSeconds > rule.everyHours * 3600,
      });
    });
  }
  return states;
}
