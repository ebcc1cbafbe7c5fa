import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rabbitmqServer } from '../../scripts/services/servers/rabbitmq';

export interface BenchRabbitmq {
  readonly url: string;
  /** Whether a process's command line is this broker's Erlang VM (for its CPU time). */
  readonly isBroker: (commandLine: string) => boolean;
  readonly private: boolean;
  stop(): Promise<void>;
}

/**
 * A RabbitMQ of the bench's own (the tests' private server, scripts/services/servers/rabbitmq.ts:
 * its own node, data and ports), so the figures count this broker's CPU and no other's, and a
 * machine without a broker on 5672 runs the bench too. With BENCH_AMQP_URL, that broker, and
 * any RabbitMQ VM counts as it.
 */
export async function benchRabbitmq(): Promise<BenchRabbitmq> {
  const given = process.env.BENCH_AMQP_URL;
  const anyBroker = (command: string): boolean =>
    command.includes('beam.smp') && command.includes('rabbit');
  if (given !== undefined) {
    return { url: given, isBroker: anyBroker, private: false, stop: async () => undefined };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-rabbitmq-'));
  const server = await rabbitmqServer.start({ dir, unprivileged: undefined });
  return {
    url: server.url,
    // The private node runs with its directory as its home (`-home <dir>`).
    isBroker: (command) => anyBroker(command) && command.includes(`-home ${dir} `),
    private: true,
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
