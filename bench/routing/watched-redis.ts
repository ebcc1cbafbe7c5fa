import { Cluster, Redis } from 'ioredis';
import { hashTagged } from '../../src/redis/hash-tag';
import type { BenchCluster } from './bench-cluster';
import type { WatchedRedis } from './run-pipeline';
import { unfinishedDeliveries } from './unfinished-deliveries';

/** One Redis at `url`, watched through a connection of the bench's own; `close` ends it. */
export function watchedOneRedis(url: string): WatchedRedis & { close(): void } {
  const stats = new Redis(url);
  return {
    url,
    ports: [new URL(url).port || '6379'],
    resetStats: async () => {
      await stats.config('RESETSTAT');
    },
    commandStats: async () => String(await stats.info('commandstats')),
    unfinished: (queueName) => unfinishedDeliveries({ url }, queueName),
    close: () => {
      stats.disconnect();
    },
  };
}

/**
 * The bench's cluster: its nodes' CPU, its primaries' commands; a pipeline's queue is `{name}`
 * there (src/config.ts `queueOnItsSlot`), and its unfinished events are read through a cluster
 * connection. `url` is a REDIS_URL the processes need to parse, not used: REDIS_CLUSTER_NODES is set.
 */
export function watchedCluster(cluster: BenchCluster): WatchedRedis & { close(): void } {
  const [first = ''] = cluster.ports;
  const nodes = cluster.seeds.split(',').map((seed) => {
    const [host = '127.0.0.1', port = '6379'] = seed.split(':');
    return { host, port: Number(port) };
  });
  const connection = new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: null } });
  connection.on('error', () => undefined);
  return {
    url: `redis://127.0.0.1:${first}`,
    ports: cluster.ports,
    resetStats: () => cluster.resetStats(),
    commandStats: () => cluster.commandStats(),
    unfinished: (queueName) => unfinishedDeliveries(connection, hashTagged(queueName)),
    close: () => {
      connection.disconnect();
    },
  };
}
