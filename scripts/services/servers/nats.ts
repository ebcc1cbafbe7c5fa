import { findBinary } from '../find-binary';
import { freePort } from '../free-port';
import { natsAnswers } from '../probes';
import type { PrivateServerKind } from '../server-kind';
import { spawnServer } from '../spawn-server';

/** nats-server with JetStream, its store in the server's own directory. */
export const natsServer: PrivateServerKind = {
  name: 'nats',
  title: 'NATS with JetStream',
  variable: 'TEST_NATS_URL',
  packages: ['nats-server'],
  binaries: [{ name: 'nats-server' }],
  start: async ({ dir }) => {
    const port = await freePort();
    const binary = findBinary('nats-server') ?? 'nats-server';
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir];
    const server = spawnServer('nats', binary, args, { dir });
    await server.ready(() => natsAnswers(port));
    return { url: `nats://127.0.0.1:${String(port)}`, stop: () => server.stop() };
  },
};
