import type { Cluster, Redis } from 'ioredis';

/**
 * A connection to the deployment's Redis: one server (REDIS_URL, or the primary Sentinel names),
 * or a Redis Cluster (REDIS_CLUSTER_NODES). Both take the same commands; on a cluster, every
 * script, MULTI and pipeline must keep to one hash slot (docs/deployment.md#a-redis-cluster).
 */
export type RedisClient = Redis | Cluster;
