import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { Logger } from '../logger';
import { createFailureWindow } from './failure-window';
import type { FailureWindow } from './failure-window';
import type { RouteCircuit, RouteFailureRate } from './route-circuit';

/** Whether a delivery may go now: as usual, as the one probe of an open circuit, or not yet. */
export type Admission =
  | { readonly kind: 'pass' }
  | { readonly kind: 'probe' }
  | { readonly kind: 'wait'; readonly ms: number };

export interface CircuitBreaker {
  /** Asked before each delivery; on `wait` the route queue is held (queue.rateLimit) for `ms`. */
  admit(): Promise<Admission>;
  succeeded(admission: Admission): Promise<void>;
  failed(admission: Admission): Promise<void>;
  /**
   * Whether the circuit was closed when last read (at most `cacheMs` ago; a stale read starts a
   * new one in the background): the inline path's check, which must not wait for Redis.
   */
  closedNow(): boolean;
}

export interface CircuitBreakerOptions {
  readonly route: string;
  readonly settings: Exclude<RouteCircuit, 'off'>;
  /** The route's queue: its Redis and key prefix hold the state, its rate limit holds the jobs. */
  readonly queue: Queue;
  readonly connection: RedisClient;
  readonly logger: Logger;
  /** How long a read of the shared state is trusted before reading it again. */
  readonly cacheMs?: number;
}

// A failed attempt: counted; at the threshold (or with the failure rate over its own, ARGV[6]) the
// circuit opens; a failed probe doubles the wait.
const FAILED = `
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local now = tonumber(ARGV[1])
if redis.call('HGET', KEYS[1], 'state') == 'open' then
  if ARGV[4] ~= '1' then return {'open', 0} end
  local delay = math.min(tonumber(redis.call('HGET', KEYS[1], 'delayMs') or ARGV[2]) * 2, tonumber(ARGV[3]))
  redis.call('HSET', KEYS[1], 'delayMs', delay, 'probeAt', now + delay)
  redis.call('DEL', KEYS[2])
  return {'probe-failed', delay}
end
if failures >= tonumber(ARGV[5]) or ARGV[6] == '1' then
  redis.call('HSET', KEYS[1], 'state', 'open', 'delayMs', ARGV[2], 'probeAt', now + tonumber(ARGV[2]))
  return {'opened', tonumber(ARGV[2]), failures}
end
return {'counted', failures}
`;

// A success: the count starts again; an open circuit closes.
const SUCCEEDED = `
local state = redis.call('HGET', KEYS[1], 'state')
redis.call('DEL', KEYS[1], KEYS[2])
if state == 'open' then return 'closed' end
return 'reset'
`;

/**
 * A route's circuit breaker, its state in Redis so every worker process sees one circuit. Open:
 * deliveries are not attempted but put back to wait (BullMQ's manual rate limit on the route
 * queue, which holds every worker process): none fails, none is lost. One probe at a time,
 * claimed with SET NX; the state is read at most every `cacheMs` on the hot path. The failure
 * rate is this process's own sample (failure-window.ts), judged at each failed attempt; a
 * success costs no command unless it follows a failure.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const probeMs = Math.round(options.settings.probeSeconds * 1000);
  const circuit: Circuit = {
    options,
    key: circuitKeyOf(options.queue),
    cacheMs: options.cacheMs ?? 250,
    probeMs,
    maxProbeMs: Math.max(probeMs, Math.round(options.settings.maxProbeSeconds * 1000)),
    sample: windowOf(options.settings.failureRate),
    cached: { readAt: 0, open: false, probeAt: 0, failures: 0 },
  };
  return {
    closedNow: () => {
      if (Date.now() - circuit.cached.readAt >= circuit.cacheMs) {
        void readCircuit(circuit).catch(() => undefined);
      }
      return !circuit.cached.open;
    },
    admit: async () => admit(circuit),
    succeeded: async (admission) => succeeded(circuit, admission),
    failed: async (admission) => failed(circuit, admission),
  };
}

/** The last read of a circuit's shared state. */
interface CachedState {
  readAt: number;
  open: boolean;
  probeAt: number;
  failures: number;
}

/** What one breaker's steps share: its settings, keys, this process's sample and its last read. */
interface Circuit {
  readonly options: CircuitBreakerOptions;
  readonly key: string;
  readonly cacheMs: number;
  readonly probeMs: number;
  readonly maxProbeMs: number;
  readonly sample: FailureWindow | undefined;
  cached: CachedState;
}

/** The shared state, read again once the last read is older than `cacheMs`. */
async function readCircuit(circuit: Circuit): Promise<CachedState> {
  const now = Date.now();
  if (now - circuit.cached.readAt < circuit.cacheMs) return circuit.cached;
  const [state, probeAt, failures] = await circuit.options.connection.hmget(
    circuit.key,
    'state',
    'probeAt',
    'failures',
  );
  // Closed since last read (by a probe anywhere): the sample before it says nothing now.
  if (circuit.cached.open && state !== 'open') circuit.sample?.clear();
  circuit.cached = {
    readAt: now,
    open: state === 'open',
    probeAt: Number(probeAt ?? 0),
    failures: Number(failures ?? 0),
  };
  return circuit.cached;
}

async function admit(circuit: Circuit): Promise<Admission> {
  const state = await readCircuit(circuit);
  if (!state.open) return { kind: 'pass' };
  const now = Date.now();
  if (now < state.probeAt) return hold(circuit, state.probeAt - now);
  const probeKey = `${circuit.key}:probe`;
  const claimed = await circuit.options.connection.set(
    probeKey,
    '1',
    'PX',
    circuit.maxProbeMs,
    'NX',
  );
  return claimed === 'OK' ? { kind: 'probe' } : hold(circuit, Math.min(1000, circuit.probeMs));
}

async function hold(circuit: Circuit, ms: number): Promise<Admission> {
  await circuit.options.queue.rateLimit(ms);
  return { kind: 'wait', ms };
}

async function succeeded(circuit: Circuit, admission: Admission): Promise<void> {
  const { cached, sample, options } = circuit;
  if (admission.kind === 'pass') sample?.record(false);
  if (admission.kind !== 'probe' && !cached.open && cached.failures === 0) return;
  const outcome = await options.connection.eval(SUCCEEDED, 2, circuit.key, `${circuit.key}:probe`);
  circuit.cached = { readAt: Date.now(), open: false, probeAt: 0, failures: 0 };
  if (outcome !== 'closed') return;
  sample?.clear();
  options.logger.info({ route: options.route }, 'route circuit closed');
}

async function failed(circuit: Circuit, admission: Admission): Promise<void> {
  const { options, sample } = circuit;
  const { settings } = options;
  if (admission.kind === 'pass') sample?.record(true);
  const rate = rateOver(settings.failureRate, sample);
  const [outcome, value, failures] = await countFailure(options.connection, circuit.key, {
    probeMs: circuit.probeMs,
    maxProbeMs: circuit.maxProbeMs,
    probe: admission.kind === 'probe',
    failures: settings.failures,
    rateOver: rate !== undefined,
  });
  circuit.cached.readAt = 0;
  if (outcome === 'opened') sample?.clear();
  logTransition(options, outcome, value, failures >= settings.failures ? undefined : rate);
}

/** The FAILED script: its outcome, the wait it set, and the failures in a row so far. */
async function countFailure(
  connection: RedisClient,
  key: string,
  attempt: {
    probeMs: number;
    maxProbeMs: number;
    probe: boolean;
    failures: number;
    rateOver: boolean;
  },
): Promise<[string, number, number]> {
  const [outcome, value, failures] = (await connection.eval(
    FAILED,
    2,
    key,
    `${key}:probe`,
    String(Date.now()),
    String(attempt.probeMs),
    String(attempt.maxProbeMs),
    attempt.probe ? '1' : '0',
    String(attempt.failures),
    attempt.rateOver ? '1' : '0',
  )) as [string, number, number?];
  return [outcome, value, failures ?? 0];
}

/** This process's sample of the route's outcomes, unless the rate rule is off. */
function windowOf(rate: RouteFailureRate): FailureWindow | undefined {
  return rate === 'off' ? undefined : createFailureWindow({ windowMs: rate.windowSeconds * 1000 });
}

/** The window's counts when they break the rate rule: enough attempts, too many failed. */
function rateOver(
  rate: RouteFailureRate,
  window: FailureWindow | undefined,
): { attempts: number; failures: number } | undefined {
  if (rate === 'off' || window === undefined) return undefined;
  const counts = window.counts();
  const over =
    counts.attempts >= rate.minAttempts && counts.failures * 100 > rate.percent * counts.attempts;
  return over ? counts : undefined;
}

/** The log line of a transition; `rate` when the failure rate (not a run of failures) opened it. */
function logTransition(
  { route, settings, logger }: CircuitBreakerOptions,
  outcome: string,
  value: number,
  rate: { attempts: number; failures: number } | undefined,
): void {
  if (outcome === 'opened') {
    const why =
      rate === undefined || settings.failureRate === 'off'
        ? { rule: 'consecutive', failures: settings.failures }
        : {
            rule: 'failure rate',
            failedPercent: Math.round((rate.failures * 100) / rate.attempts),
            attempts: rate.attempts,
            windowSeconds: settings.failureRate.windowSeconds,
          };
    logger.warn(
      { route, ...why, probeSeconds: value / 1000 },
      'route circuit opened: deliveries wait',
    );
  } else if (outcome === 'probe-failed') {
    logger.warn({ route, nextProbeSeconds: value / 1000 }, 'route circuit probe failed');
  }
}

/** Whether a route's circuit is open, for the metrics gauge and the CLI. */
export async function isCircuitOpen(connection: RedisClient, queue: Queue): Promise<boolean> {
  return (await circuitStateOf(connection, queue)).open;
}

/** A route's circuit as every process sees it: open or not, and when its next probe may go (ms). */
export async function circuitStateOf(
  connection: RedisClient,
  queue: Queue,
): Promise<{ open: boolean; probeAt: number | undefined }> {
  const [state, probeAt] = await connection.hmget(circuitKeyOf(queue), 'state', 'probeAt');
  return {
    open: state === 'open',
    probeAt: probeAt === null || state !== 'open' ? undefined : Number(probeAt),
  };
}

/** The Redis hash of a route's circuit, beside its BullMQ queue (BullMQ's obliterate leaves it). */
function circuitKeyOf(queue: Queue): string {
  return queue.toKey('circuit');
}
