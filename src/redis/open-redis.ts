import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';

/** The longest wait between two connection attempts, unless a role sets its own strategy. */
export const REDIS_RETRY_MAX_MS = 2000;

/** Where a process finds its Redis: the config's Redis keys (src/config.ts `redisKeys`). */
export interface RedisConnectionConfig {
  readonly REDIS_URL: string;
  readonly REDIS_SENTINELS?: readonly { host: string; port: number }[] | undefined;
  readonly REDIS_SENTINEL_NAME?: string | undefined;
  readonly REDIS_SENTINEL_PASSWORD?: string | undefined;
  readonly REDIS_PASSWORD?: string | undefined;
}

/**
 * The one place that turns the Redis keys into an ioredis connection, for every process: one
 * server at REDIS_URL, or — with REDIS_SENTINELS and REDIS_SENTINEL_NAME — whichever server the
 * sentinels name primary, asked again on every reconnect, so a failover needs no restart.
 * `roleOptions` are what the caller's role needs (producer, worker, CLI); a plain URL string
 * (tests, bench) is the single-server case.
 */
export function openRedis(redis: string | RedisConnectionConfig, options: RedisOptions): Redis {
  const config: RedisConnectionConfig = typeof redis === 'string' ? { REDIS_URL: redis } : redis;
  const roleOptions: RedisOptions = {
    // Quick at first, then every REDIS_RETRY_MAX_MS: the cadence watch-redis.ts announces.
    retryStrategy: (attempt) => Math.min(attempt * 200, REDIS_RETRY_MAX_MS),
    ...options,
  };
  // With REDIS_URL a password in the URL wins (ioredis takes the URL's fields first).
  const password = config.REDIS_PASSWORD === undefined ? {} : { password: config.REDIS_PASSWORD };
  if (config.REDIS_SENTINELS === undefined || config.REDIS_SENTINEL_NAME === undefined) {
    return new Redis(config.REDIS_URL, { ...roleOptions, ...password });
  }
  return new Redis({
    ...roleOptions,
    ...password,
    sentinels: config.REDIS_SENTINELS.map(({ host, port }) => ({ host, port })),
    name: config.REDIS_SENTINEL_NAME,
    ...(config.REDIS_SENTINEL_PASSWORD === undefined
      ? {}
      : { sentinelPassword: config.REDIS_SENTINEL_PASSWORD }),
    // A sentinel that accepts the connection but never answers must not stall the reconnect.
    sentinelCommandTimeout: 2000,
    // Sentinel demotes an old primary that comes back and disconnects its clients; should a
    // connection still reach a server that is a replica by now, its writes fail READONLY:
    // reconnect, which asks the sentinels again.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  });
}
