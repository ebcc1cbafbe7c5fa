import { redisConfigOf } from './open-redis';
import type { RedisConnectionConfig } from './open-redis';

/** Where a process's Redis is, for messages (never a user or password), and the key that says so. */
export interface RedisWhere {
  /** `host:port/db`, `sentinels host:port,…` or `cluster host:port,…`. */
  readonly target: string;
  readonly key: 'REDIS_URL' | 'REDIS_SENTINELS' | 'REDIS_CLUSTER_NODES';
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

/**
 * Where the Redis keys point: REDIS_URL's server, the sentinels when REDIS_SENTINELS is set, or
 * the cluster's seed nodes when REDIS_CLUSTER_NODES is.
 */
export function redisWhere(redis: string | RedisConnectionConfig): RedisWhere {
  const config = redisConfigOf(redis);
  const nodes = config.REDIS_CLUSTER_NODES;
  if (nodes !== undefined)
    return { target: `cluster ${hostsOf(nodes)}`, key: 'REDIS_CLUSTER_NODES' };
  const sentinels = config.REDIS_SENTINELS;
  if (sentinels === undefined || config.REDIS_SENTINEL_NAME === undefined) {
    return { target: redisTarget(config.REDIS_URL), key: 'REDIS_URL' };
  }
  return { target: `sentinels ${hostsOf(sentinels)}`, key: 'REDIS_SENTINELS' };
}

function hostsOf(addresses: readonly { host: string; port: number }[]): string {
  return addresses.map(({ host, port }) => `${host}:${String(port)}`).join(',');
}
