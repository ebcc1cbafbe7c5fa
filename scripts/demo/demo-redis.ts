import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { ConfigError, EnvSchema, loadConfig, redisKeys } from '../../src/config';
import { closeRedis } from '../../src/redis/close-redis';
import { openRedis } from '../../src/redis/open-redis';
import type { RedisConnectionConfig } from '../../src/redis/open-redis';
import { redisWhere } from '../../src/redis/redis-target';
import { withTimeout } from '../../src/with-timeout';
import { installMissing, MissingServicesError } from '../services/install-missing';
import { redisServer } from '../services/servers/redis';

export interface DemoRedis {
  /** Where it is, for the banner: a URL, or `cluster host:port,…`. */
  url: string;
  /** The Redis keys every part of the demo is started with: REDIS_URL, or the cluster's. */
  env: Readonly<Record<string, string>>;
  /** The same keys, parsed: what the demo's own connections open (its clean-up). */
  config: RedisConnectionConfig;
  /** Where it came from, for the banner. */
  origin: string;
  stop: () => Promise<void>;
}

/** The keys of a cluster the demo passes on to its parts, when given. */
const CLUSTER_KEYS = ['REDIS_CLUSTER_NODES', 'REDIS_CLUSTER_TLS', 'REDIS_PASSWORD'] as const;
const RedisKeys = EnvSchema.pick(redisKeys);

/**
 * Thrown when the cluster asked for does not answer, or neither REDIS_URL answers nor a
 * redis-server can be had; the message says what to do.
 */
export class NoRedisError extends Error {}

/**
 * The Redis of the demo: the Redis Cluster of REDIS_CLUSTER_NODES when it is set (it must
 * answer); else REDIS_URL (or the local default) when it answers PING; otherwise the
 * test services' private `redis-server` (scripts/services) on a free port, without persistence,
 * stopped with the demo — installed from Debian's packages first when it is missing and this
 * run may (root on Debian), one line saying so.
 */
export async function demoRedis(
  env: NodeJS.ProcessEnv,
  say: (line: string) => void = () => undefined,
): Promise<DemoRedis> {
  if (env.REDIS_CLUSTER_NODES !== undefined && env.REDIS_CLUSTER_NODES !== '') {
    return demoCluster(env);
  }
  const preferredUrl = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (await answers(preferredUrl)) {
    return {
      url: preferredUrl,
      env: { REDIS_URL: preferredUrl },
      config: { REDIS_URL: preferredUrl },
      origin: 'REDIS_URL',
      stop: () => Promise.resolve(),
    };
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
    env: { REDIS_URL: server.url },
    config: { REDIS_URL: server.url },
    origin: 'private redis-server (no persistence), stopped at the end',
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The Redis Cluster REDIS_CLUSTER_NODES names, when asked for one: it must answer, since a
 * private single Redis in its place would not be what was asked.
 */
async function demoCluster(env: NodeJS.ProcessEnv): Promise<DemoRedis> {
  const keys: Record<string, string> = {};
  for (const key of CLUSTER_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') keys[key] = value;
  }
  let config;
  try {
    config = loadConfig(RedisKeys, keys);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new NoRedisError(`The demo cannot use REDIS_CLUSTER_NODES: ${error.message}`);
  }
  const where = redisWhere(config).target;
  const cluster = openRedis(config, {
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  cluster.on('error', () => undefined);
  try {
    const noAnswer = () => new Error('no answer');
    await withTimeout(cluster.ping(), 5000, noAnswer);
  } catch {
    throw new NoRedisError(
      [
        `No Redis Cluster answers at ${where.replace(/^cluster /, '')} (REDIS_CLUSTER_NODES).`,
        'Start it, or leave REDIS_CLUSTER_NODES unset: the demo then uses REDIS_URL or a private Redis.',
      ].join('\n'),
    );
  } finally {
    await closeRedis(cluster);
  }
  return {
    url: where,
    env: keys,
    config,
    origin: 'REDIS_CLUSTER_NODES',
    stop: () => Promise.resolve(),
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
