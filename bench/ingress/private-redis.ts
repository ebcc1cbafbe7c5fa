import { spawn, spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import type { Cores } from './cores';
import { freePort } from './free-port';

export interface BenchRedis {
  readonly url: string;
  /** Drops every key, so one load's jobs do not weigh on the next (only on a private Redis). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A Redis of the bench's own (redis-server on a free port, on the load's core, no persistence),
 * so the figures do not depend on what else uses a shared one. With BENCH_REDIS_URL set, that
 * Redis is used and nothing is flushed (the bench obliterates its queues). Never the machine's
 * default port: without redis-server and BENCH_REDIS_URL the bench stops, saying how to install it.
 */
export async function benchRedis(cores: Cores): Promise<BenchRedis & { private: boolean }> {
  const given = process.env.BENCH_REDIS_URL;
  if (given !== undefined) {
    return {
      url: given,
      private: false,
      flush: async () => undefined,
      stop: async () => undefined,
    };
  }
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error(
      'the bench starts a Redis of its own: redis-server is not installed (Debian: apt-get install redis-server), or name one with BENCH_REDIS_URL',
    );
  }
  const port = await freePort();
  const [command = 'redis-server', ...prefix] = [...cores.load, 'redis-server'];
  const child = spawn(
    command,
    [...prefix, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  // The offline queue holds the PING until the server listens (ioredis reconnects meanwhile).
  const client = new Redis(url, { retryStrategy: () => 50 });
  client.on('error', () => undefined);
  await client.ping();
  return {
    url,
    private: true,
    flush: async () => {
      await client.flushall();
    },
    stop: async () => {
      client.disconnect();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
