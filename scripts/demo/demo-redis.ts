import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';

export interface DemoRedis {
  url: string;
  /** Where it came from, for the banner. */
  origin: string;
  stop: () => Promise<void>;
}

/** Thrown when neither REDIS_URL answers nor a redis-server can be started; the message says what to do. */
export class NoRedisError extends Error {}

/**
 * The Redis of the demo: REDIS_URL (or the local default) when it answers PING; otherwise a
 * private `redis-server` from PATH on a free port, without persistence, stopped with the demo.
 */
export async function demoRedis(preferredUrl: string): Promise<DemoRedis> {
  if (await answers(preferredUrl)) {
    return { url: preferredUrl, origin: 'REDIS_URL', stop: () => Promise.resolve() };
  }
  const binary = onPath('redis-server');
  if (binary === undefined) {
    throw new NoRedisError(
      [
        `No Redis answers at ${hostOf(preferredUrl)} and there is no redis-server on PATH.`,
        'Either install one (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis)',
        'and run the demo again — it starts a private one for itself — or point REDIS_URL at a Redis:',
        '  REDIS_URL=redis://host:6379 npm run demo',
      ].join('\n'),
    );
  }
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${String(port)}`;
  const deadline = Date.now() + 5000;
  while (!(await answers(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child);
      throw new NoRedisError(`${binary} did not start on port ${String(port)}.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    origin: `private ${binary} (no persistence), stopped at the end`,
    stop: () => stopChild(child),
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    if (client.status === 'ready') await client.quit().catch(() => undefined);
    else if (client.status !== 'end') client.disconnect();
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port === '' ? '6379' : parsed.port}`;
  } catch {
    return 'REDIS_URL';
  }
}
