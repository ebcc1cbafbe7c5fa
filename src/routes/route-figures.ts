import type { Queue } from 'bullmq';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '../redis/redis-client';
import { slotPipelines } from '../redis/slot-pipelines';
import type { RecordedOutcome } from './record-attempt';

/** One attempt as the route figures count it: every attempt, inline or queued. */
export interface FiguresAttempt {
  readonly outcome: RecordedOutcome;
  /** When the attempt ended (ms since the epoch). */
  readonly at: number;
  readonly durationMs: number;
  readonly number: number;
  readonly eventId: string;
  readonly institution?: string | undefined;
  readonly jobId?: string | undefined;
  /** The failure's message (the same text the log line and the history keep). */
  readonly error?: string | undefined;
}

/** Where every delivery attempt is counted (attempt-delivery.ts calls it, inline and queued). */
export interface RouteFiguresWriter {
  /** Counts an attempt: kept in memory, written with the next flush (no command here). */
  attempt(route: string, attempt: FiguresAttempt): void;
  /** Writes what is pending now (one pipeline for every route). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is pending. */
  close(): Promise<void>;
}

/** The Redis keys of a route's figures, beside its BullMQ queue (read-route-figures.ts). */
export function figuresKeysOf(queue: Queue): {
  minute: (minute: number) => string;
  state: string;
  failures: string;
  durations: string;
} {
  const base = queue.toKey('figures');
  return {
    minute: (minute) => `${base}:m:${String(minute)}`,
    state: `${base}:state`,
    failures: `${base}:failures`,
    durations: `${base}:durations`,
  };
}

/** The short field of each outcome in a minute's hash. */
export const OUTCOME_FIELD: Readonly<Record<RecordedOutcome, string>> = {
  delivered: 'd',
  retrying: 'r',
  failed: 'f',
};
/** Recent failed attempts kept per route, newest first. */
export const FAILURES_KEPT = 50;
/** Recent delivered attempts' durations kept per route for the p95. */
const DURATIONS_KEPT = 500;
/** A minute's counts outlive the hour they are read for. */
const MINUTE_TTL_SECONDS = 2 * 3600;
const MINUTE_MS = 60_000;

/** What one route's attempts since the last flush add up to. */
interface Pending {
  readonly counts: Map<string, number>;
  readonly failures: string[];
  readonly durations: string[];
  last?: FiguresAttempt;
  readonly lastOf: Map<string, FiguresAttempt>;
  /** A delivery since the last flush: the run of failures starts again from `failing`. */
  reset: boolean;
  failing: number;
  failingSince?: number;
  lastError?: string;
}

/**
 * Route figures (counts per minute, the last result, the run of failures, recent failures, the
 * delivered attempts' durations) in a few small Redis keys per route, written by every attempt —
 * inline and queued alike — so the CLI, the console and the API read one source. Attempts are
 * added up in memory and written every `flushEveryMs` in one pipeline for all routes (a handful
 * of commands per route and flush, whatever the traffic); a process that dies loses at most that
 * long of counts, never a delivery.
 */
export function createRouteFigures(options: {
  readonly connection: RedisClient;
  readonly queues: ReadonlyMap<string, Queue>;
  readonly flushEveryMs?: number;
}): RouteFiguresWriter {
  const { connection, queues } = options;
  let pending = new Map<string, Pending>();
  let flushing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (pending.size === 0) return flushing;
    const batch = pending;
    pending = new Map();
    // One pipeline for all routes; on a cluster, one per route (each route queue its own slot).
    const pipelines = slotPipelines(connection);
    for (const [route, one] of batch) {
      const queue = queues.get(route);
      if (queue !== undefined) writeRoute(pipelines.of(queue.name), queue, one);
    }
    // Redis away: these counts are lost (the deliveries are not); the next flush carries on.
    flushing = flushing.then(() =>
      pipelines.exec().then(
        () => undefined,
        () => undefined,
      ),
    );
    return flushing;
  };
  const timer = setInterval(() => void flush(), options.flushEveryMs ?? 250);
  timer.unref();
  return {
    attempt: (route, attempt) => {
      let one = pending.get(route);
      if (one === undefined) {
        one = {
          counts: new Map(),
          failures: [],
          durations: [],
          lastOf: new Map(),
          reset: false,
          failing: 0,
        };
        pending.set(route, one);
      }
      addAttempt(one, attempt);
    },
    flush,
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}

function addAttempt(one: Pending, attempt: FiguresAttempt): void {
  const minute = Math.floor(attempt.at / MINUTE_MS);
  const field = OUTCOME_FIELD[attempt.outcome];
  const add = (key: string): void => {
    one.counts.set(key, (one.counts.get(key) ?? 0) + 1);
  };
  add(`${String(minute)} ${field}`);
  if (attempt.institution !== undefined) add(`${String(minute)} ${field}|${attempt.institution}`);
  one.last = attempt;
  if (attempt.institution !== undefined) one.lastOf.set(attempt.institution, attempt);
  if (attempt.outcome === 'delivered') {
    one.durations.push(
      `${String(attempt.at)} ${String(attempt.durationMs)} ${attempt.institution ?? ''}`,
    );
    Object.assign(one, { reset: true, failing: 0, failingSince: undefined });
    return;
  }
  one.failing += 1;
  one.failingSince ??= attempt.at;
  one.lastError = attempt.error ?? '';
  one.failures.push(JSON.stringify(attempt));
}

type Pipeline = ChainableCommander;

/** A route's batch as a few commands: counts, last results, the run of failures, two lists. */
function writeRoute(pipeline: Pipeline, queue: Queue, one: Pending): void {
  const keys = figuresKeysOf(queue);
  const minutes = new Set<string>();
  for (const [key, count] of one.counts) {
    // `<minute> <field>`: the field may hold an institution code with spaces.
    const space = key.indexOf(' ');
    const minute = key.slice(0, space);
    const field = key.slice(space + 1);
    minutes.add(minute);
    pipeline.hincrby(keys.minute(Number(minute)), field, count);
  }
  for (const minute of minutes) pipeline.expire(keys.minute(Number(minute)), MINUTE_TTL_SECONDS);
  const lasts: string[] = [];
  if (one.last !== undefined) lasts.push('last', lastOf(one.last));
  for (const [institution, attempt] of one.lastOf)
    lasts.push(`last|${institution}`, lastOf(attempt));
  if (lasts.length > 0) pipeline.hset(keys.state, ...lasts);
  writeFailingRun(pipeline, keys.state, one);
  if (one.failures.length > 0) {
    pipeline.lpush(keys.failures, ...one.failures);
    pipeline.ltrim(keys.failures, 0, FAILURES_KEPT - 1);
  }
  if (one.durations.length > 0) {
    pipeline.lpush(keys.durations, ...one.durations);
    pipeline.ltrim(keys.durations, 0, DURATIONS_KEPT - 1);
  }
}

/** The run of failed attempts since the last delivery: its length, start and last error. */
function writeFailingRun(pipeline: Pipeline, key: string, one: Pending): void {
  if (one.reset) {
    pipeline.hset(key, 'failing', one.failing);
    if (one.failingSince === undefined) pipeline.hdel(key, 'failingSince', 'lastError');
  } else if (one.failing > 0) {
    pipeline.hincrby(key, 'failing', one.failing);
  }
  if (one.failingSince !== undefined) {
    // A run already going keeps its start; one that began in this batch after a delivery starts here.
    if (one.reset) pipeline.hset(key, 'failingSince', one.failingSince);
    else pipeline.hsetnx(key, 'failingSince', one.failingSince);
  }
  if (one.failing > 0 && one.lastError !== undefined)
    pipeline.hset(key, 'lastError', one.lastError);
}

function lastOf(attempt: FiguresAttempt): string {
  return JSON.stringify({
    result: attempt.outcome,
    at: attempt.at,
    attempt: attempt.number,
    eventId: attempt.eventId,
    ...(attempt.error === undefined ? {} : { error: attempt.error }),
  });
}
