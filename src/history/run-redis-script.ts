import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/redis-client';

/**
 * A Lua script by its SHA (EVALSHA): the script's text is sent once per server, not with every
 * call (an outbox append is the worker's most frequent command). NOSCRIPT — a restarted or
 * flushed server — sends it again with EVAL, which caches it.
 */
export function redisScript(
  text: string,
): (
  redis: RedisClient,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown> {
  const sha = createHash('sha1').update(text).digest('hex');
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(text, keys.length, ...keys, ...args);
    }
  };
}
