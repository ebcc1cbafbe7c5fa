import type { RedisClient } from '../redis/redis-client';

/**
 * The API budget left per institution, as the last answer of the service said it
 * (`X-Svc-Api-Remaining`): the worker writes it, the console's overview reads it. One hash per
 * deployment, a field per institution (`-`: the single institution).
 */
export function apiRemainingKey(queueName: string): string {
  return `svcws:${queueName}:api-remaining`;
}

const SINGLE = '-';

/**
 * A writer that keeps only the latest figure: at most one write in flight, the newest value
 * written after it. A worker's connection waits for Redis, so an outage costs one pending write,
 * not one per API answer.
 */
export function createApiRemainingWriter(
  redis: RedisClient,
  queueName: string,
): (remaining: number, institution: string | undefined) => void {
  const latest = new Map<string, number>();
  let writing = false;
  const flush = (): void => {
    if (writing || latest.size === 0) return;
    const fields = [...latest].flatMap(([field, remaining]) => [
      field,
      JSON.stringify({ remaining, at: new Date().toISOString() }),
    ]);
    latest.clear();
    writing = true;
    redis
      .hset(apiRemainingKey(queueName), ...fields)
      .catch(() => undefined)
      .finally(() => {
        writing = false;
        flush();
      });
  };
  return (remaining, institution) => {
    latest.set(institution ?? SINGLE, remaining);
    flush();
  };
}

/** The last figure the worker stored for `institution`; undefined: none stored yet. */
export async function readApiRemaining(
  redis: RedisClient,
  queueName: string,
  institution: string | undefined,
): Promise<number | undefined> {
  const text = await redis.hget(apiRemainingKey(queueName), institution ?? SINGLE);
  if (text === null) return undefined;
  try {
    const value: unknown = (JSON.parse(text) as { remaining?: unknown }).remaining;
    return typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}
