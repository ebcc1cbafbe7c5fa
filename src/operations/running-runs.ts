import type { LockRedis } from './recovery-lock';
import { refreshedHold } from './refreshed-hold';

/** One replay or recovery run while it runs: named in the refusal of a run past the cap. */
export interface RunningRun {
  readonly replayId: string;
  readonly kind: 'replay' | 'recover';
  readonly route: string;
  readonly actor: string;
  readonly startedAt: string;
}

export interface RunSlot {
  /** Gives the slot up and stops refreshing it. */
  release(): Promise<void>;
}

/** Where the running runs are counted, and how many may run at once (REPLAY_MAX_RUNNING). */
export interface RunCap {
  /** runsKey(QUEUE_NAME): one set for every route and process of the deployment. */
  readonly key: string;
  readonly max: number;
}

/** A run's entry lives this long unless refreshed: a crashed process frees its slot soon. */
const TTL_MS = 120_000;
const REFRESH_MS = 30_000;

/**
 * Drops the entries past their time, then adds ours unless `max` run already (answering them).
 * Redis's own clock: every process compares against the same time.
 */
const TAKE = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return redis.call('ZRANGE', KEYS[1], 0, -1)
end
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 'OK'`;
const REFRESH = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', ms + tonumber(ARGV[2]), ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

/** The set of the running replay and recovery runs of a deployment (`<QUEUE_NAME>:replay-runs`). */
export function runsKey(queueName: string): string {
  return `${queueName}:replay-runs`;
}

/**
 * At most `cap.max` replay and recovery runs at once, across every route and process (the console
 * and the CLI): each run queues deliveries at its own rate, so many at once add up to a load the
 * destinations and Redis were not sized for. A run past the cap is refused, naming the runs.
 */
export async function takeRunSlot(
  redis: LockRedis,
  cap: RunCap,
  run: RunningRun,
): Promise<{ readonly slot: RunSlot } | { readonly running: RunningRun[] }> {
  const member = JSON.stringify(run);
  const answer = await redis.runCommand('eval', [TAKE, 1, cap.key, member, cap.max, TTL_MS]);
  if (!Array.isArray(answer)) return { slot: heldSlot(redis, cap.key, member) };
  return { running: answer.map((one) => runOf(String(one))) };
}

function heldSlot(redis: LockRedis, key: string, member: string): RunSlot {
  return refreshedHold(
    () => redis.runCommand('eval', [REFRESH, 1, key, member, TTL_MS]),
    () => redis.runCommand('zrem', [key, member]),
    REFRESH_MS,
  );
}

function runOf(text: string): RunningRun {
  const unknown = 'unknown';
  try {
    const parsed = JSON.parse(text) as Partial<Record<keyof RunningRun, unknown>>;
    const field = (value: unknown) => (typeof value === 'string' ? value : unknown);
    return {
      replayId: field(parsed.replayId),
      kind: parsed.kind === 'recover' ? 'recover' : 'replay',
      route: field(parsed.route),
      actor: field(parsed.actor),
      startedAt: field(parsed.startedAt),
    };
  } catch {
    return {
      replayId: unknown,
      kind: 'replay',
      route: unknown,
      actor: unknown,
      startedAt: unknown,
    };
  }
}

/** Why a run was not started: its machine code and the words naming what holds it back. */
export interface RunRefusal {
  /** `recovery_running`: one of the route runs (recovery-lock.ts); `too_many_runs`: the cap. */
  readonly code: 'recovery_running' | 'too_many_runs';
  readonly message: string;
}

/**
 * A slot under the cap for the run (given up by the caller when the run ends), or the refusal;
 * no cap: a slot that holds nothing.
 */
export async function holdRunSlot(
  redis: () => Promise<LockRedis>,
  cap: RunCap | undefined,
  run: Omit<RunningRun, 'startedAt'>,
): Promise<RunSlot | { readonly refused: RunRefusal }> {
  if (cap === undefined) return { release: () => Promise.resolve() };
  const startedAt = new Date().toISOString();
  const taken = await takeRunSlot(await redis(), cap, { ...run, startedAt });
  if ('slot' in taken) return taken.slot;
  return { refused: { code: 'too_many_runs', message: runsFullMessage(cap.max, taken.running) } };
}

/** The refusal's words: the cap, and each run that holds a slot. */
function runsFullMessage(max: number, running: readonly RunningRun[]): string {
  const runs = running.map(
    (one) =>
      `${one.replayId} (${one.kind === 'recover' ? 'recovery' : 'replay'} of route ${one.route} by ${one.actor}, started ${one.startedAt})`,
  );
  return (
    `${String(running.length)} replay or recovery runs are running, REPLAY_MAX_RUNNING is ` +
    `${String(max)}: ${runs.join(', ')}; wait for one to end`
  );
}
