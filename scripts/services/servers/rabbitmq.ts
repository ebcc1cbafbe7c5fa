import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { findBinary } from '../find-binary';
import { freePort } from '../free-port';
import { amqpAnswers } from '../probes';
import type { PrivateServerKind } from '../server-kind';
import { spawnServer } from '../spawn-server';

/** Debian's wrapper in /usr/sbin switches to the rabbitmq user and its /var/lib; the real script does not. */
const RABBITMQ_DIRS = () => ['/usr/lib/rabbitmq/bin'];

/**
 * A RabbitMQ node of its own: its own node name, data, logs, cookie and its own epmd on a free
 * port, so it neither sees nor disturbs a broker the machine runs.
 */
export const rabbitmqServer: PrivateServerKind = {
  name: 'rabbitmq',
  title: 'RabbitMQ',
  variable: 'TEST_AMQP_URL',
  packages: ['rabbitmq-server'],
  binaries: [{ name: 'rabbitmq-server', dirs: RABBITMQ_DIRS }, { name: 'epmd' }],
  start: async ({ dir }) => {
    const [port, distPort, epmdPort] = [await freePort(), await freePort(), await freePort()];
    await writeFile(path.join(dir, 'enabled_plugins'), '[].\n');
    await writeFile(path.join(dir, 'rabbitmq.conf'), 'loopback_users.guest = true\n');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: dir,
      RABBITMQ_NODENAME: `svcws-test-${randomBytes(4).toString('hex')}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      ERL_EPMD_PORT: String(epmdPort),
      RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(dir, 'log'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
      RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq'),
      RABBITMQ_PID_FILE: path.join(dir, 'rabbitmq.pid'),
    };
    const binary = findBinary('rabbitmq-server', RABBITMQ_DIRS()) ?? 'rabbitmq-server';
    const server = spawnServer('rabbitmq', binary, [], { dir, env });
    const stop = async (): Promise<void> => {
      // A test broker keeps nothing worth a graceful stop, which takes RabbitMQ seconds.
      await server.stop('SIGKILL');
      await stopEpmd(epmdPort);
    };
    try {
      await server.ready(() => amqpAnswers(port));
    } catch (error) {
      await stop();
      throw error;
    }
    return { url: `amqp://guest:guest@127.0.0.1:${String(port)}`, stop };
  },
};

/** The node started an epmd of its own on `port` (daemonised, outside the node's process group). */
function stopEpmd(port: number): Promise<void> {
  const epmd = findBinary('epmd') ?? 'epmd';
  return new Promise((resolve) => {
    execFile(epmd, ['-port', String(port), '-kill'], () => resolve());
  });
}
