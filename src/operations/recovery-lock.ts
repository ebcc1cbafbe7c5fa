import { refreshedHold } from './refreshed-hold';

/** What the lock needs of a connection: the route queue's own (`queue.backend.connection.client`). */
export interface LockRedis {
  runCommand(name: string, args: (string | number)[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

/** Who holds a route's recovery: named in the refusal of a second one. */
export interface RecoveryHolder {
  readonly replayId: string;
  readonly actor: string;
  readonly startedAt: string;
}

export interface RecoveryLock {
  /** Gives the lock up (only if still ours) and stops refreshing it. */
  release(): Promise<void>;
}

/** A holder's key lives this long unless refreshed: a crashed process frees its route soon. */
const TTL_MS = 120_000;
const REFRESH_MS = 30_000;

/** Deletes or refreshes the key only while it still holds our value. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const REFRESH = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/** The lock of one route queue's recovery (`<route queue>:recovery-lock`). */
export function recoveryLockKey(routeQueueName: string): string {
  return `${routeQueueName}:recovery-lock`;
}

/**
 * One recovery per route at a time, across processes (the console and `history recover`): two
 * at once would each send the route's failed events, so a destination would get each twice. The
 * first takes `<route queue>:recovery-lock` (SET NX, refreshed while it runs); a second is
 * refused with the first's holder.
 */
export async function takeRecoveryLock(
  redis: LockRedis,
  routeQueueName: string,
  holder: RecoveryHolder,
): Promise<{ readonly lock: RecoveryLock } | { readonly heldBy: RecoveryHolder }> {
  const key = recoveryLockKey(routeQueueName);
  const value = JSON.stringify(holder);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if ((await redis.runCommand('set', [key, value, 'PX', TTL_MS, 'NX'])) === 'OK') {
      return { lock: heldLock(redis, key, value) };
    }
    const current = await redis.get(key);
    // Gone between the two calls (released or expired): try once more.
    if (current !== null) return { heldBy: holderOf(current) };
  }
  return { heldBy: { replayId: 'unknown', actor: 'unknown', startedAt: 'unknown' } };
}

function heldLock(redis: LockRedis, key: string, value: string): RecoveryLock {
  return refreshedHold(
    () => redis.runCommand('eval', [REFRESH, 1, key, value, TTL_MS]),
    () => redis.runCommand('eval', [RELEASE, 1, key, value]),
    REFRESH_MS,
  );
}

function holderOf(text: string): RecoveryHolder {
  try {
    const parsed = JSON.parse(text) as Partial<Record<keyof RecoveryHolder, unknown>>;
    const field = (value: unknown) => (typeof value === 'string' ? value : 'unknown');
    return {
      replayId: field(parsed.replayId),
      actor: field(parsed.actor),
      startedAt: field(parsed.startedAt),
    };
  } catch {
    return { replayId: 'unknown', actor: 'unknown', startedAt: 'unknown' };
  }
}

/** The refusal's words: the route and the recovery that holds it. */
export function recoveryRunningMessage(route: string, holder: RecoveryHolder): string {
  return (
    `a recovery of route ${route} is already running: ${holder.replayId}, ` +
    `started by ${holder.actor} at ${holder.startedAt}; wait for it to end`
  );
}
