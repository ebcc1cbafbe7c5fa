import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { busPort } from '../../helpers/private-cluster';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';

const run = promisify(execFile);
const SCRIPT = join(__dirname, '../../../deploy/redis-cluster/create-cluster.sh');

/** The script as docker-compose.cluster.yml runs it: `sh create-cluster.sh host:port…`. */
async function createCluster(
  nodes: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('sh', [SCRIPT, ...nodes]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function clusterInfo(port: number): Promise<Map<string, string>> {
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  try {
    const text = String(await client.cluster('INFO'));
    return new Map(
      text
        .split(/\r?\n/)
        .filter((line) => line.includes(':'))
        .map((line) => line.split(':', 2) as [string, string]),
    );
  } finally {
    client.disconnect();
  }
}

describe("deploy/redis-cluster/create-cluster.sh (docker-compose.cluster.yml's one-shot join)", () => {
  let servers: PrivateRedis[] = [];
  // Nodes named, not numbered, as compose names its services: `localhost` is resolved first.
  let nodes: string[] = [];

  beforeAll(async () => {
    // Both loopbacks, so `localhost` answers whichever address it resolves to here.
    const args = ['--cluster-enabled', 'yes', '--bind', '127.0.0.1', '-::1'];
    servers = await Promise.all(
      Array.from({ length: 6 }, async () =>
        startPrivateRedis({ args: [...args, ...(await busPort())] }),
      ),
    );
    nodes = servers.map(({ port }) => `localhost:${String(port)}`);
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('refuses fewer than six nodes, saying how many it needs', async () => {
    const answer = await createCluster(nodes.slice(0, 3));

    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain('six nodes or more (3 primaries, a replica each), got 3');
  });

  it('names a node it cannot resolve, and joins nothing', async () => {
    const answer = await createCluster([...nodes.slice(0, 5), 'no-such-node.invalid:6379']);

    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('cannot resolve no-such-node.invalid');
    expect((await clusterInfo(servers[0]?.port ?? 0)).get('cluster_known_nodes')).toBe('1');
  });

  it('joins six named nodes into 3 primaries with a replica each, then leaves them as they are', async () => {
    const first = await createCluster(nodes);

    expect(first).toMatchObject({ code: 0 });
    const deadline = Date.now() + 30_000;
    let states: string[] = [];
    while (Date.now() < deadline) {
      const infos = await Promise.all(servers.map(({ port }) => clusterInfo(port)));
      states = infos.map((info) => `${info.get('cluster_state')}/${info.get('cluster_size')}`);
      if (states.every((state) => state === 'ok/3')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(states).toEqual(Array.from({ length: 6 }, () => 'ok/3'));

    const again = await createCluster(nodes);

    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already knows 6 nodes: nothing to do');
  });
});
