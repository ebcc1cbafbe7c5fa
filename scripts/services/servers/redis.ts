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
    const port = await freePort();
    const binary = findBinary('redis-server') ?? 'redis-server';
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    const server = spawnServer('redis', binary, [...args, '--dir', dir], { dir });
    await server.ready(() => redisAnswers(port));
    return { url: `redis://127.0.0.1:${String(port)}`, stop: () => server.stop() };
  },
};
