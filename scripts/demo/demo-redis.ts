import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { installMissing, MissingServicesError } from '../services/install-missing';
import { redisServer } from '../services/servers/redis';

export interface DemoRedis {
  url: string;
  /** Where it came from, for the banner. */
  origin: string;
  stop: () => Promise<void>;
}

/** Thrown when neither REDIS_URL answers nor a redis-server can be had; the message says what to do. */
export class NoRedisError extends Error {}

/**
 * The Redis of the demo: REDIS_URL (or the local default) when it answers PING; otherwise the
 * test services' private `redis-server` (scripts/services) on a free port, without persistence,
 * stopped with the demo — installed from Debian's packages first when it is missing and this
 * run may (root on Debian), one line saying so.
 */
export async function demoRedis(
  preferredUrl: string,
  say: (line: string) => void = () => undefined,
): Promise<DemoRedis> {
  if (await answers(preferredUrl)) {
    return { url: preferredUrl, origin: 'REDIS_URL', stop: () => Promise.resolve() };
  }
  try {
    installMissing([redisServer], say);
  } catch (error) {
    if (!(error instanceof MissingServicesError)) throw error;
    throw new NoRedisError(
      [
        `No Redis answers at ${hostOf(preferredUrl)} and there is no redis-server on PATH.`,
        'Either install one (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis)',
        'and run the demo again — it starts a private one for itself — or point REDIS_URL at a Redis:',
        '  REDIS_URL=redis://host:6379 npm run demo',
      ].join('\n'),
    );
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'svcws-demo-redis-'));
  const server = await redisServer.start({ dir, unprivileged: undefined }).catch(async (error) => {
    await rm(dir, { recursive: true, force: true });
    throw new NoRedisError(error instanceof Error ? error.message : String(error));
  });
  return {
    url: server.url,
    origin: 'private redis-server (no persistence), stopped at the end',
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
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

function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port === '' ? '6379' : parsed.port}`;
  } catch {
    return 'REDIS_URL';
  }
}
