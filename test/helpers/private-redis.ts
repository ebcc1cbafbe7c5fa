import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisAnswers as answers } from '../../scripts/services/probes';
import { freePort } from './free-port';

export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server for real (SIGKILL: no last word to the clients). */
  stop: () => Promise<void>;
  /** Starts it again on the same port, with what it had acknowledged; running, a no-op. */
  start: () => Promise<void>;
  /** Stops it and removes its directory; call in afterAll. */
  close: () => Promise<void>;
}

export interface PrivateRedisOptions {
  /** More `redis-server` arguments, e.g. `['--repl-diskless-sync-delay', '0']`. */
  args?: readonly string[];
}

/**
 * A `redis-server` of the test's own on a free loopback port, never the shared one: a test may
 * stop it and start it again.
 */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'private-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    // Every write in the AOF before its answer: what Redis acknowledged survives stop and start.
    const persistence = ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'];
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      ...persistence,
      ...(options.args ?? []),
    ];
    child = spawn('redis-server', [...args, '--dir', dir], { cwd: dir, stdio: 'ignore' });
    await waitUntil(() => answers(port));
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${String(port)}`,
    port,
    stop,
    start,
    close: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('private redis-server did not answer within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
