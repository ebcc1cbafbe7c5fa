import { findBinary } from '../find-binary';
import { freePort } from '../free-port';
import { redisAnswers } from '../probes';
import type { PrivateServerKind } from '../server-kind';
import { spawnServer } from '../spawn-server';

/** redis-server on a free loopback port, nothing kept on disk. */
export const redisServer: PrivateServerKind = {
  name: 'redis',
  title: 'Redis',
  variable: 'TEST_REDIS_URL',
  packages: ['redis-server', 'redis-tools'],
  binaries: [{ name: 'redis-server' }, { name: 'redis-cli' }],
  start: async ({ dir }) => {
    const { port, stop } = await startRedisServer(dir);
    return { url: `redis://127.0.0.1:${String(port)}`, stop };
  },
};

/**
 * redis-server on a free loopback port, keeping nothing on disk, its log and any file it writes
 * (a cluster node's `nodes.conf`) in `dir`; `args` add to its settings (cluster mode, …).
 */
export async function startRedisServer(
  dir: string,
  args: readonly string[] = [],
): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const binary = findBinary('redis-server') ?? 'redis-server';
  const settings = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  const server = spawnServer('redis', binary, [...settings, ...args, '--dir', dir], { dir });
  await server.ready(() => redisAnswers(port));
  return { port, stop: () => server.stop() };
}
