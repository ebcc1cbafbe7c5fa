import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RedisClient } from '../redis/redis-client';
import { z } from 'zod';
import { withTimeout } from '../with-timeout';

/**
 * What one worker process runs, as it tells Redis: the routes file it read at its start (by
 * hash), the routes in it, and who it is. The console reads these (its own copy of the file is
 * only what it read at its own start), so a route added and picked up by a restarted worker shows,
 * and one no worker runs any more shows as such.
 */
export const RoutesRunEntry = z.object({
  workerId: z.string(),
  host: z.string(),
  pid: z.number().int(),
  /** ROUTES_FILE as the worker names it. */
  file: z.string(),
  /** sha256 of the file's bytes, hex: workers that disagree about the file differ here. */
  hash: z.string(),
  routes: z.array(z.string()),
  /** When the worker read the file (ISO time). */
  readAt: z.string(),
});
export type RoutesRunEntry = z.infer<typeof RoutesRunEntry>;

/** A worker refreshes its entry this often, and an entry not refreshed within the TTL is gone. */
const ROUTES_RUN_REFRESH_MS = 10_000;
const ROUTES_RUN_TTL_MS = 35_000;
/** How long a stopping worker tries to remove its entry. */
const CLOSE_MS = 1000;

/** The hash of entries (by worker id) and the sorted set of their expiry times, per deployment. */
export function routesRunKeys(queueName: string): { entries: string; until: string } {
  const base = `svcws:${queueName}:routes-run`;
  return { entries: base, until: `${base}:until` };
}

export interface RoutesRunRegistration {
  /** Stops refreshing and removes the entry: a worker that stops drops out at once. */
  close(): Promise<void>;
}

/**
 * Writes `entry` now and every `refreshMs`, each time with an expiry `ttlMs` ahead; a worker that
 * dies stops refreshing and drops out once its expiry passes. A write that Redis does not take is
 * left to the next refresh (a worker's connection waits for Redis; nothing is queued twice).
 */
export function registerRoutesRun(options: {
  redis: RedisClient;
  queueName: string;
  entry: RoutesRunEntry;
  refreshMs?: number;
  ttlMs?: number;
}): RoutesRunRegistration {
  const { redis, entry } = options;
  const keys = routesRunKeys(options.queueName);
  const ttlMs = options.ttlMs ?? ROUTES_RUN_TTL_MS;
  let writing: Promise<void> | undefined;
  const write = (): void => {
    if (writing !== undefined) return;
    const now = Date.now();
    writing = redis
      .multi()
      .hset(keys.entries, entry.workerId, JSON.stringify(entry))
      .zadd(keys.until, now + ttlMs, entry.workerId)
      .exec()
      .then(() => pruneExpired(redis, keys, now))
      .catch(() => undefined)
      .finally(() => {
        writing = undefined;
      });
  };
  write();
  const timer = setInterval(write, options.refreshMs ?? ROUTES_RUN_REFRESH_MS);
  timer.unref();
  return {
    close: async () => {
      clearInterval(timer);
      // A worker's connection waits for Redis: a stop while Redis is away must not wait with it
      // (the entry then expires by itself).
      const removed = (async () => {
        await writing;
        await redis
          .multi()
          .hdel(keys.entries, entry.workerId)
          .zrem(keys.until, entry.workerId)
          .exec();
      })();
      await withTimeout(removed, CLOSE_MS, () => new Error('routes-run entry not removed')).catch(
        () => undefined,
      );
    },
  };
}

/** Entries whose expiry passed (their workers died) are removed by whoever writes next. */
async function pruneExpired(
  redis: RedisClient,
  keys: { entries: string; until: string },
  now: number,
): Promise<void> {
  const gone = await redis.zrangebyscore(keys.until, '-inf', now);
  if (gone.length === 0) return;
  await redis
    .multi()
    .hdel(keys.entries, ...gone)
    .zrem(keys.until, ...gone)
    .exec();
}

/** The entries of the workers alive now (refreshed within their TTL), by worker id. */
export async function readRoutesRun(
  redis: RedisClient,
  queueName: string,
  now = Date.now(),
): Promise<RoutesRunEntry[]> {
  const keys = routesRunKeys(queueName);
  const alive = await redis.zrangebyscore(keys.until, now, '+inf');
  if (alive.length === 0) return [];
  const texts = await redis.hmget(keys.entries, ...alive);
  return texts.flatMap((text) => {
    if (text === null) return [];
    const parsed = RoutesRunEntry.safeParse(safeJson(text));
    return parsed.success ? [parsed.data] : [];
  });
}

/** The names of the routes some worker alive now runs. */
export async function readRoutesRunNames(redis: RedisClient, queueName: string): Promise<string[]> {
  const entries = await readRoutesRun(redis, queueName);
  return [...new Set(entries.flatMap((entry) => entry.routes))];
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** sha256 of a routes file's bytes (hex), the `hash` two processes compare; undefined: unreadable. */
export function routesFileHash(path: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
}
