import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { keySlot } from '../../src/redis/key-slot';
import { startRedisServer } from '../../scripts/services/servers/redis';
import { freePort } from '../ingress/free-port';

const run = promisify(execFile);

export interface BenchCluster {
  /** REDIS_CLUSTER_NODES: every node. */
  readonly seeds: string;
  /** Every node's port (the Redis CPU of a phase is the sum over them). */
  readonly ports: readonly string[];
  /** `INFO commandstats` of every primary, reset first with `reset`. */
  commandStats(): Promise<string>;
  resetStats(): Promise<void>;
  /** Each primary's port, with its keys counted by hash tag (`{name}`; `-` for untagged keys). */
  keysPerPrimary(): Promise<Map<number, Map<string, number>>>;
  /** The port of the primary that serves `key`'s slot. */
  ownerOf(key: string): Promise<number>;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

interface Node {
  readonly port: number;
  readonly client: Redis;
  stop(): Promise<void>;
}

/**
 * A Redis Cluster of the bench's own: 3 primaries with one replica each, no persistence (as the
 * bench's one Redis), joined by `redis-cli --cluster create`. Always private: the Redis CPU of a
 * phase is read from the nodes' processes, so they must be this machine's and the bench's alone.
 */
export async function benchCluster(): Promise<BenchCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-cluster-'));
  const nodes: Node[] = [];
  const stop = async (): Promise<void> => {
    for (const node of nodes) node.client.disconnect();
    await Promise.all(nodes.map((node) => node.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < 6; index += 1) nodes.push(await startNode(dir, index));
    const addresses = nodes.map(({ port }) => `127.0.0.1:${String(port)}`);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...addresses,
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await untilOk(nodes);
  } catch (error) {
    await stop();
    throw error;
  }
  const primaries = async (): Promise<Node[]> => {
    const roles = await Promise.all(nodes.map(({ client }) => client.role()));
    return nodes.filter((_node, index) => roles[index]?.[0] === 'master');
  };
  return {
    seeds: nodes.map(({ port }) => `127.0.0.1:${String(port)}`).join(','),
    ports: nodes.map(({ port }) => String(port)),
    commandStats: async () => {
      const texts = await Promise.all(
        (await primaries()).map(({ client }) => client.info('commandstats')),
      );
      return texts.join('\n');
    },
    resetStats: async () => {
      await Promise.all(nodes.map(({ client }) => client.config('RESETSTAT')));
    },
    keysPerPrimary: async () => {
      const counted = await Promise.all(
        (await primaries()).map(
          async ({ port, client }) => [port, await keysByTag(client)] as const,
        ),
      );
      return new Map(counted);
    },
    ownerOf: async (key) => {
      const slot = keySlot(key);
      const slots = (await nodes[0]?.client.cluster('SLOTS')) ?? [];
      const owner = slots.find(([first, last]) => slot >= first && slot <= last);
      return owner?.[2]?.[1] ?? 0;
    },
    flush: async () => {
      await Promise.all((await primaries()).map(({ client }) => client.flushall()));
    },
    stop,
  };
}

async function keysByTag(client: Redis): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'COUNT', 1000);
    for (const key of keys) {
      const tag = /\{[^{}]+\}/.exec(key)?.[0] ?? '-';
      counts.set(tag, (counts.get(tag) ?? 0) + 1);
    }
    cursor = next;
  } while (cursor !== '0');
  return counts;
}

async function startNode(dir: string, index: number): Promise<Node> {
  const own = path.join(dir, String(index));
  await mkdir(own);
  // The cluster bus on a free port of its own: port + 10000 may be taken, or past 65535.
  const bus = ['--cluster-port', String(await freePort())];
  const server = await startRedisServer(own, ['--cluster-enabled', 'yes', ...bus]);
  const client = new Redis({ host: '127.0.0.1', port: server.port });
  client.on('error', () => undefined);
  return { port: server.port, stop: server.stop, client };
}

async function untilOk(nodes: readonly Node[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const infos = await Promise.all(nodes.map(({ client }) => client.cluster('INFO')));
    if (infos.every((info) => String(info).includes('cluster_state:ok'))) return;
    if (Date.now() > deadline) throw new Error('the bench cluster did not reach cluster_state:ok');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
