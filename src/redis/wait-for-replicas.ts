import type { Cluster, Redis } from 'ioredis';
import { keySlot } from './key-slot';
import type { RedisClient } from './redis-client';

/**
 * `WAIT replicas timeoutMs`: how many replicas acknowledged every write this connection made
 * before it. On one server (or Sentinel's primary) that is the connection itself. On a cluster a
 * write went to the primary owning its key's slot, over this process's connection to that node:
 * the WAIT goes there (`key`: one of the keys written), or — no key given — to every primary, and
 * the answer is the fewest any of them confirmed. A slot whose primary is not known (the slot map
 * being read again during a failover) confirms none.
 */
export async function waitForReplicas(
  client: RedisClient,
  replicas: number,
  timeoutMs: number,
  key?: string,
): Promise<number> {
  if (!client.isCluster) return waitOn(client as Redis, replicas, timeoutMs);
  const cluster = client as Cluster;
  const nodes = key === undefined ? cluster.nodes('master') : ownerOf(cluster, key);
  if (nodes.length === 0) return 0;
  const counts = await Promise.all(nodes.map((node) => waitOn(node, replicas, timeoutMs)));
  return Math.min(...counts);
}

async function waitOn(node: Redis, replicas: number, timeoutMs: number): Promise<number> {
  return Number(await node.call('wait', replicas, timeoutMs));
}

/** The primary that owns `key`'s slot, as this process's slot map says: none if it does not know. */
function ownerOf(cluster: Cluster, key: string): Redis[] {
  const owner = cluster.slots[keySlot(key)]?.[0];
  if (owner === undefined) return [];
  return cluster
    .nodes('master')
    .filter((node) => `${String(node.options.host)}:${String(node.options.port)}` === owner);
}
