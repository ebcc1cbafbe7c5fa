import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../../helpers/free-port';
import { startReplicationProxy } from './replication-proxy';
import type { ReplicationProxy } from './replication-proxy';

export const MASTER_NAME = 'svc-ha';

export interface Address {
  host: string;
  port: number;
}

export interface RedisHa {
  /** The sentinels, as REDIS_SENTINELS takes them. */
  sentinels: Address[];
  sentinelsEnv: string;
  /** The primary as the sentinels first know it (its proxy's address when proxied). */
  primary: Address;
  /** SIGKILLs the primary: no shutdown, no last write to anyone. */
  killPrimary: () => void;
  /** The proxy everyone reaches the first primary through, when asked for. */
  primaryProxy: ReplicationProxy | undefined;
  /** Asks a sentinel which server is primary now. */
  currentPrimary: () => Promise<Address>;
  stop: () => Promise<void>;
}

export interface RedisHaOptions {
  replicas: number;
  /** Everyone reaches the primary through a proxy, so a test can hold replication back. */
  proxyPrimary?: boolean;
}

/**
 * A primary, its replicas and three sentinels on loopback ports, each a real `redis-server`
 * (`--sentinel` for the sentinels) with a generated config in a temp dir, timings short so a
 * failover takes seconds. stop() kills them all and removes the dir; call it in afterAll.
 */
export async function startRedisHa(options: RedisHaOptions): Promise<RedisHa> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-ha-'));
  const children: ChildProcess[] = [];
  let proxy: ReplicationProxy | undefined;
  const stop = async (): Promise<void> => {
    await Promise.all(children.map(killed));
    await proxy?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const server = await startServer(dir, 'primary', [], children);
    if (options.proxyPrimary === true) proxy = await startReplicationProxy(server);
    const primary = proxy === undefined ? server : { host: '127.0.0.1', port: proxy.port };
    const replicas: Address[] = [];
    for (let index = 0; index < options.replicas; index += 1) {
      const lines = [`replicaof ${primary.host} ${String(primary.port)}`];
      replicas.push(await startServer(dir, `replica-${String(index)}`, lines, children));
    }
    for (const replica of replicas) await waitFor(() => replicaInSync(replica), 'replica in sync');
    const sentinels: Address[] = [];
    for (let index = 0; index < 3; index += 1) {
      const lines = [
        'sentinel resolve-hostnames no',
        `sentinel monitor ${MASTER_NAME} ${primary.host} ${String(primary.port)} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 3000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
      ];
      sentinels.push(await startServer(dir, `sentinel-${String(index)}`, lines, children, true));
    }
    // A failover needs a majority of sentinels that know each other and know the replicas.
    for (const sentinel of sentinels) {
      await waitFor(() => sentinelSees(sentinel, options.replicas), 'sentinels to meet');
    }
    return {
      sentinels,
      sentinelsEnv: sentinels.map(({ host, port }) => `${host}:${String(port)}`).join(','),
      primary,
      killPrimary: () => children[0]?.kill('SIGKILL'),
      primaryProxy: proxy,
      currentPrimary: () => askPrimary(sentinels),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startServer(
  dir: string,
  name: string,
  extra: string[],
  children: ChildProcess[],
  sentinel = false,
): Promise<Address> {
  const port = await freePort();
  const file = join(dir, `${name}.conf`);
  const common = [`port ${String(port)}`, 'bind 127.0.0.1', `dir ${dir}`, `logfile ${name}.log`];
  const data = sentinel ? [] : ['save ""', 'appendonly no', `dbfilename ${name}.rdb`];
  await writeFile(file, [...common, ...data, ...extra, ''].join('\n'));
  const args = sentinel ? [file, '--sentinel'] : [file];
  const child = spawn('redis-server', args, { cwd: dir, stdio: 'ignore' });
  children.push(child);
  const address = { host: '127.0.0.1', port };
  await waitFor(() => answers(address), `${name} to answer`);
  return address;
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** One short-lived connection per question: the servers come and go under the test. */
async function ask<T>(address: Address, question: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    ...address,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await question(redis);
  } finally {
    redis.disconnect();
  }
}

async function answers(address: Address): Promise<boolean> {
  return (await ask(address, (redis) => redis.ping())) === 'PONG';
}

async function replicaInSync(address: Address): Promise<boolean> {
  const info = await ask(address, (redis) => redis.info('replication'));
  return info.includes('master_link_status:up');
}

async function sentinelSees(address: Address, replicas: number): Promise<boolean> {
  const flat = await ask(address, (redis) => redis.call('SENTINEL', 'MASTER', MASTER_NAME));
  const fields = Array.isArray(flat) ? flat.map(String) : [];
  const field = (name: string): number => Number(fields[fields.indexOf(name) + 1]);
  return field('num-other-sentinels') === 2 && field('num-slaves') === replicas;
}

async function askPrimary(sentinels: Address[]): Promise<Address> {
  for (const sentinel of sentinels) {
    try {
      const reply = await ask(sentinel, (redis) =>
        redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME),
      );
      if (Array.isArray(reply)) return { host: String(reply[0]), port: Number(reply[1]) };
    } catch {
      // the next sentinel
    }
  }
  throw new Error('no sentinel named a primary');
}

/** Polls `check` (errors count as "not yet") every 100 ms for up to 20 s. */
export async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  withinMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
