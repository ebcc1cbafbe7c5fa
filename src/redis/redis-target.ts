import type { RedisConnectionConfig } from './open-redis';

/** Where a process's Redis is, for messages (never a user or password), and the key that says so. */
export interface RedisWhere {
  /** `host:port/db`, or `sentinels host:port,…`. */
  readonly target: string;
  readonly key: 'REDIS_URL' | 'REDIS_SENTINELS';
}

/** `host:port/db` of a Redis URL for messages: never its user or password. */
function redisTarget(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    return `${url.hostname}:${url.port === '' ? '6379' : url.port}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

/** Where the Redis keys point: REDIS_URL's server, or the sentinels when REDIS_SENTINELS is set. */
export function redisWhere(redis: string | RedisConnectionConfig): RedisWhere {
  const config: RedisConnectionConfig = typeof redis === 'string' ? { REDIS_URL: redis } : redis;
  const sentinels = config.REDIS_SENTINELS;
  if (sentinels === undefined || config.REDIS_SENTINEL_NAME === undefined) {
    return { target: redisTarget(config.REDIS_URL), key: 'REDIS_URL' };
  }
  const hosts = sentinels.map(({ host, port }) => `${host}:${port}`).join(',');
  return { target: `sentinels ${hosts}`, key: 'REDIS_SENTINELS' };
}
