import { Cluster, Redis } from 'ioredis';
import type { ClusterOptions, RedisOptions } from 'ioredis';
import type { RedisClient } from './redis-client';

/** The longest wait between two connection attempts, unless a role sets its own strategy. */
export const REDIS_RETRY_MAX_MS = 2000;

/** Where a process finds its Redis: the config's Redis keys (src/config.ts `redisKeys`). */
export interface RedisConnectionConfig {
  readonly REDIS_URL: string;
  readonly REDIS_SENTINELS?: readonly { host: string; port: number }[] | undefined;
  readonly REDIS_SENTINEL_NAME?: string | undefined;
  readonly REDIS_SENTINEL_PASSWORD?: string | undefined;
  readonly REDIS_CLUSTER_NODES?: readonly { host: string; port: number }[] | undefined;
  readonly REDIS_CLUSTER_TLS?: 'on' | 'off' | undefined;
  readonly REDIS_PASSWORD?: string | undefined;
}

/** The config of a string (tests, bench: the single-server case) or the config itself. */
export function redisConfigOf(redis: string | RedisConnectionConfig): RedisConnectionConfig {
  return typeof redis === 'string' ? { REDIS_URL: redis } : redis;
}

/**
 * The one place that turns the Redis keys into an ioredis connection, for every process: one
 * server at REDIS_URL; or — with REDIS_SENTINELS and REDIS_SENTINEL_NAME — whichever server the
 * sentinels name primary, asked again on every reconnect, so a failover needs no restart; or —
 * with REDIS_CLUSTER_NODES — a Redis Cluster (`openCluster` below). `roleOptions` are what
 * the caller's role needs (producer, worker, CLI); a plain URL string (tests, bench) is the
 * single-server case.
 */
export function openRedis(
  redis: string | RedisConnectionConfig,
  options: RedisOptions,
): RedisClient {
  const config = redisConfigOf(redis);
  const roleOptions: RedisOptions = {
    // Quick at first, then every REDIS_RETRY_MAX_MS: the cadence watch-redis.ts announces.
    retryStrategy: (attempt) => Math.min(attempt * 200, REDIS_RETRY_MAX_MS),
    reconnectOnError: reconnectWhenReplica,
    ...options,
  };
  // With REDIS_URL a password in the URL wins (ioredis takes the URL's fields first).
  const password = config.REDIS_PASSWORD === undefined ? {} : { password: config.REDIS_PASSWORD };
  if (config.REDIS_CLUSTER_NODES !== undefined) {
    return openCluster(config.REDIS_CLUSTER_NODES, config, { ...roleOptions, ...password });
  }
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
  });
}

/**
 * A write refused READONLY reached a server that is a replica by now: after a failover, an old
 * primary that Sentinel demoted, a managed service's primary endpoint (a DNS name) that moved
 * to the promoted node while this connection stayed on the old one, or a cluster node turned
 * replica. Reconnect (the sentinels asked again, the name resolved again, the node's slots read
 * again); the command itself fails, and its caller's retry (the listener's spool or 503, the
 * worker's job retry) sends it to the new primary.
 */
function reconnectWhenReplica(error: Error): boolean {
  return error.message.startsWith('READONLY');
}

/**
 * A Redis Cluster: the seed nodes are asked for the slot map, every command goes to the primary
 * that owns its key's slot (`scaleReads: 'master'`: a replica may lag, and a read must see the
 * write it follows), and the map is read again after a MOVED, a failover or a node lost. What
 * the role sets per connection (timeouts, retries per request, the offline queue) holds for the
 * cluster and for each node; how often the whole cluster is tried again is the role's strategy.
 */
function openCluster(
  nodes: readonly { host: string; port: number }[],
  config: RedisConnectionConfig,
  options: RedisOptions,
): Cluster {
  const { retryStrategy, enableOfflineQueue, lazyConnect, enableAutoPipelining, ...nodeOptions } =
    options;
  const clusterOptions: ClusterOptions = {
    redisOptions: {
      ...nodeOptions,
      ...(config.REDIS_CLUSTER_TLS === 'on' ? { tls: {} } : {}),
    },
    scaleReads: 'master',
    // Over TLS each node is reached by the name it is known by, not by an address the name
    // resolves to: a managed service's certificate names its hosts, and a connection made to an
    // address would fail the certificate check (ioredis' note on AWS ElastiCache with TLS;
    // test/integration/redis-cluster/cluster-tls.test.ts).
    ...(config.REDIS_CLUSTER_TLS === 'on'
      ? {
          dnsLookup: (address: string, found: (error: null, address: string) => void) =>
            found(null, address),
        }
      : {}),
    // A failover, a cluster without a primary for some slots, a slot being moved: wait a moment
    // and send again, within the role's retries per request.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 100,
    retryDelayOnMoved: 0,
    maxRedirections: 16,
    slotsRefreshTimeout: 2000,
    // A node answering LOADING (a restarted primary reading its data): not ready yet.
    enableReadyCheck: true,
    ...(retryStrategy === undefined ? {} : { clusterRetryStrategy: retryStrategy }),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
  };
  return new Cluster(
    nodes.map(({ host, port }) => ({ host, port })),
    clusterOptions,
  );
}
