import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from './redis-client';
import { withTimeout } from '../with-timeout';

/** One node of a Redis Cluster as the cluster itself sees it (CLUSTER NODES). */
export interface ClusterNodeState {
  /** `host:port`, as the cluster announces it. */
  readonly node: string;
  readonly role: 'primary' | 'replica';
  /** `ok`; `unreachable` (a node's own doubt, PFAIL); `failed` (the cluster agreed, FAIL). */
  readonly state: 'ok' | 'unreachable' | 'failed';
  /** Slots a primary serves. */
  readonly slots: number;
}

/**
 * The nodes of the cluster `connection` is on, with their state, from the first node that answers
 * within `timeoutMs`; undefined on one Redis (or Sentinel's primary). A node this process cannot
 * reach is still listed, as the others see it.
 */
export async function readClusterNodeStates(
  connection: RedisClient,
  timeoutMs = 500,
): Promise<ClusterNodeState[] | undefined> {
  if (!connection.isCluster) return undefined;
  for (const node of (connection as Cluster).nodes('all')) {
    const table = await askWithin(node, timeoutMs);
    if (table !== undefined) return parseClusterNodes(table);
  }
  return [];
}

async function askWithin(node: Redis, timeoutMs: number): Promise<string | undefined> {
  const asked = node.call('cluster', 'nodes').then((answer) => String(answer));
  return withTimeout(asked, timeoutMs, () => new Error('no answer')).catch(() => undefined);
}

/** CLUSTER NODES' lines: `<id> <ip:port@cport> <flags> <primary> <ping> <pong> <epoch> <link> <slot>…`. */
function parseClusterNodes(table: string): ClusterNodeState[] {
  return table
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [, address = '', flagText = '', , , , , , ...ranges] = line.split(' ');
      const flags = flagText.split(',');
      const failed = flags.includes('fail');
      const doubted = flags.includes('fail?');
      return {
        node: address.split('@')[0] ?? address,
        role: flags.includes('master') ? 'primary' : 'replica',
        state: failed ? 'failed' : doubted ? 'unreachable' : 'ok',
        slots: ranges
          .filter((range) => !range.startsWith('['))
          .reduce((sum, range) => {
            const [first = '0', last = first] = range.split('-');
            return sum + Number(last) - Number(first) + 1;
          }, 0),
      } as const;
    })
    .sort((a, b) => a.node.localeCompare(b.node));
}
