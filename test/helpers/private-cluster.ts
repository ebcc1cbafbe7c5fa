import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startPrivateRedis } from './private-redis';
import type { PrivateRedis } from './private-redis';
import { freePort } from './free-port';

const run = promisify(execFile);

export interface ClusterNode {
  readonly port: number;
  readonly server: PrivateRedis;
}

/** One line of CLUSTER NODES: who a node is, what it serves, whether it is up. */
export interface NodeRole {
  readonly id: string;
  readonly port: number;
  readonly role: 'primary' | 'replica';
  /** The primary a replica follows (its id). */
  readonly primaryId?: string;
  /** The slot ranges a primary serves, `[first, last]`. */
  readonly slots: readonly (readonly [number, number])[];
  readonly failed: boolean;
}

export interface PrivateCluster {
  readonly nodes: readonly ClusterNode[];
  /** REDIS_CLUSTER_NODES: every node, as a deployment would list some of them. */
  readonly seeds: string;
  /** With `tls`: every node's TLS port by name, `localhost:<tls port>,…` (else empty). */
  readonly tlsSeeds: string;
  /** The roles now, as a node that answers sees them. */
  roles(): Promise<NodeRole[]>;
  /** The port of the primary that serves `slot`. */
  ownerOf(slot: number): Promise<number>;
  /** A connection to one node (not the cluster), closed by the caller. */
  nodeClient(port: number): Redis;
  /** Until every node that runs says the cluster is ok and agrees who serves every slot. */
  settled(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real Redis Cluster of the test's own: `primaries` primaries with one replica each, every node
 * a private redis-server (its AOF as startPrivateRedis keeps it) with cluster mode on, joined by
 * `redis-cli --cluster create`. A node can be stopped (SIGKILL) and started again on its port.
 */
export async function startPrivateCluster(
  primaries = 3,
  options: PrivateClusterOptions = {},
): Promise<PrivateCluster> {
  const nodes: ClusterNode[] = [];
  const tlsPorts: number[] = [];
  const args = [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    // A primary that stops answering is failed over within a few seconds.
    '--cluster-node-timeout',
    '2000',
    // DEBUG SLEEP from the test (a stalled primary).
    '--enable-debug-command',
    'local',
    // Replicas catch up without waiting for more of them.
    '--repl-diskless-sync-delay',
    '0',
  ];
  try {
    for (let index = 0; index < primaries * 2; index += 1) {
      const tls = options.tls === undefined ? [] : await tlsArgs(options.tls);
      const server = await startPrivateRedis({ args: [...args, ...(await busPort()), ...tls] });
      nodes.push({ port: server.port, server });
      if (tls.length > 0) tlsPorts.push(Number(tls[1]));
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map(({ port }) => `127.0.0.1:${String(port)}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
  } catch (error) {
    await Promise.all(nodes.map(({ server }) => server.close()));
    throw error;
  }
  const cluster = clusterOf(nodes, tlsPorts);
  await cluster.settled();
  return cluster;
}

export interface PrivateClusterOptions {
  /**
   * TLS besides the plain ports: each node also listens with this certificate on a TLS port, the
   * cluster bus and replication go over TLS, and the nodes announce themselves as `localhost`,
   * as a managed service announces its names: a client on TLS is sent to names, not addresses.
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
}

/**
 * The node's cluster bus on a free port of its own: by default it is the node's port + 10000,
 * which may be taken, or past 65535 for a port above 55535 (Redis then refuses to start).
 */
export async function busPort(): Promise<string[]> {
  return ['--cluster-port', String(await freePort())];
}

/** A node's TLS settings (`--tls-port` first, then its free port). */
async function tlsArgs(tls: NonNullable<PrivateClusterOptions['tls']>): Promise<string[]> {
  return [
    ...['--tls-port', String(await freePort())],
    ...['--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile],
    ...['--tls-ca-cert-file', tls.certFile, '--tls-auth-clients', 'no'],
    ...['--tls-cluster', 'yes', '--tls-replication', 'yes'],
    ...['--cluster-announce-hostname', 'localhost'],
    ...['--cluster-preferred-endpoint-type', 'hostname'],
  ];
}

function clusterOf(nodes: readonly ClusterNode[], tlsPorts: readonly number[]): PrivateCluster {
  const nodeClient = (port: number): Redis =>
    new Redis({ host: '127.0.0.1', port, lazyConnect: false, maxRetriesPerRequest: 1 });
  const ask = async <T>(port: number, command: string[]): Promise<T> => {
    const client = nodeClient(port);
    client.on('error', () => undefined);
    try {
      return (await client.call(command[0] ?? '', ...command.slice(1))) as T;
    } finally {
      client.disconnect();
    }
  };
  const roles = async (): Promise<NodeRole[]> => {
    for (const { port } of nodes) {
      try {
        return parseNodes(await ask<string>(port, ['cluster', 'nodes']));
      } catch {
        // That node is down: ask the next.
      }
    }
    throw new Error('no cluster node answers');
  };
  const settled = async (timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await agreed(nodes, ask)) return;
      if (Date.now() > deadline)
        throw new Error(`cluster not settled within ${String(timeoutMs)} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  return {
    nodes,
    seeds: nodes.map(({ port }) => `127.0.0.1:${String(port)}`).join(','),
    tlsSeeds: tlsPorts.map((port) => `localhost:${String(port)}`).join(','),
    roles,
    ownerOf: async (slot) => {
      const owner = (await roles()).find(
        (node) =>
          node.role === 'primary' &&
          !node.failed &&
          node.slots.some(([first, last]) => slot >= first && slot <= last),
      );
      if (owner === undefined) throw new Error(`no primary serves slot ${String(slot)}`);
      return owner.port;
    },
    nodeClient,
    settled,
    close: async () => {
      await Promise.all(nodes.map(({ server }) => server.close()));
    },
  };
}

/** Every node that answers says `cluster_state:ok` and sees the same primaries serve all slots. */
async function agreed(
  nodes: readonly ClusterNode[],
  ask: <T>(port: number, command: string[]) => Promise<T>,
): Promise<boolean> {
  const views: string[] = [];
  for (const { port } of nodes) {
    let info: string;
    let table: string;
    try {
      info = await ask<string>(port, ['cluster', 'info']);
      table = await ask<string>(port, ['cluster', 'nodes']);
    } catch {
      continue;
    }
    if (!info.includes('cluster_state:ok')) return false;
    const primaries = parseNodes(table).filter((node) => node.role === 'primary' && !node.failed);
    const served = primaries.reduce(
      (sum, node) => sum + node.slots.reduce((count, [a, b]) => count + b - a + 1, 0),
      0,
    );
    if (served !== 16384) return false;
    views.push(
      primaries
        .map((node) => `${String(node.port)}=${JSON.stringify(node.slots)}`)
        .sort()
        .join(' '),
    );
  }
  return views.length > 0 && views.every((view) => view === views[0]);
}

function parseNodes(text: string): NodeRole[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', address = '', flags = '', primaryId = '-', , , , , ...ranges] =
        line.split(' ');
      const port = Number(/:(\d+)@/.exec(address)?.[1] ?? Number.NaN);
      const slots = ranges
        .filter((range) => !range.startsWith('['))
        .map((range) => {
          const [first = '', last = first] = range.split('-');
          return [Number(first), Number(last)] as const;
        });
      const role = flags.includes('master') ? 'primary' : 'replica';
      return {
        id,
        port,
        role,
        ...(primaryId === '-' ? {} : { primaryId }),
        slots,
        failed: flags.split(',').some((flag) => flag === 'fail' || flag === 'fail?'),
      } as const;
    });
}
