import type { Cluster } from 'ioredis';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { keySlot } from '../redis/key-slot';
import type { RedisClient } from '../redis/redis-client';

/**
 * `svcws_queue_redis_node{queue,node}` (1), on a Redis Cluster only: the primary (`host:port`)
 * that serves each of this process's queues, as its slot map says at the scrape — so a dashboard
 * or an alert on one node (its memory, its failover) can name the queues it holds. One series per
 * queue; a queue whose slot has no known primary (mid-failover) has none until the map is read
 * again. On one Redis nothing is registered.
 */
export function registerQueueNodes(
  registry: Registry,
  connection: RedisClient,
  queueNames: () => readonly string[],
): void {
  if (!connection.isCluster) return;
  const cluster = connection as Cluster;
  new Gauge({
    name: 'svcws_queue_redis_node',
    help: 'the Redis Cluster primary (host:port) that serves each queue, 1 per queue',
    labelNames: ['queue', 'node'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const queue of queueNames()) {
        // BullMQ's keys of the queue (prefix `bull`): every one of them is on the queue's slot.
        const node = cluster.slots[keySlot(`bull:${queue}:id`)]?.[0];
        if (node !== undefined) this.set({ queue, node }, 1);
      }
    },
  });
}
