import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { RecordedOutcome } from './record-attempt';
import { FAILURES_KEPT, OUTCOME_FIELD, figuresKeysOf } from './route-figures';
import type { FiguresAttempt } from './route-figures';

/** A route's attempt figures, from the one source every attempt writes (route-figures.ts). */
export interface RouteFigures {
  /** Attempts of the last hour (to within a minute), by outcome. */
  readonly lastHour: {
    readonly delivered: number;
    readonly retrying: number;
    readonly failed: number;
  };
  /** The 95th percentile of the last hour's delivered attempts' durations (ms); null: none. */
  readonly p95DeliveryMs: number | null;
  readonly last: {
    readonly result: RecordedOutcome;
    readonly at: string;
    readonly attempt: number;
    readonly eventId: string;
    readonly error: string | null;
  } | null;
  /** The attempts since the last delivery all failed (every institution's): how many, since when. */
  readonly failing: {
    readonly since: string;
    readonly attempts: number;
    readonly lastError: string;
  } | null;
  /** The newest failed attempts (retrying or failed), newest first. */
  readonly recentFailures: readonly {
    readonly at: string;
    readonly eventId: string;
    readonly institution: string | null;
    readonly jobId: string | null;
    readonly attempt: number;
    readonly outcome: 'retrying' | 'failed';
    readonly error: string;
  }[];
}

export interface ReadRouteFiguresOptions {
  /** One institution's figures (its counts, last result, failures); every institution's unless given. */
  readonly institution?: string | undefined;
  readonly now?: number;
  /** How many recent failures; 10 unless given (at most 50 are kept). */
  readonly failures?: number;
}

const MINUTE_MS = 60_000;
const HOUR_MINUTES = 60;

/**
 * The figures of a route's attempts — counts of the last hour, p95, the last result, a run of
 * failures, recent failures — in one round trip. The one read the CLI's `routes`, the console's
 * overview and routes page and `/api/v1/routes` and `/api/v1/overview` share.
 */
export async function readRouteFigures(
  connection: RedisClient,
  queue: Queue,
  options: ReadRouteFiguresOptions = {},
): Promise<RouteFigures> {
  const now = options.now ?? Date.now();
  const keys = figuresKeysOf(queue);
  const suffix = options.institution === undefined ? '' : `|${options.institution}`;
  const fields = (['delivered', 'retrying', 'failed'] as const).map(
    (outcome) => `${OUTCOME_FIELD[outcome]}${suffix}`,
  );
  const current = Math.floor(now / MINUTE_MS);
  const pipeline = connection.pipeline();
  for (let minute = current - HOUR_MINUTES + 1; minute <= current; minute += 1) {
    pipeline.hmget(keys.minute(minute), ...fields);
  }
  pipeline.hgetall(keys.state);
  pipeline.lrange(keys.failures, 0, FAILURES_KEPT - 1);
  pipeline.lrange(keys.durations, 0, -1);
  const answers = (await pipeline.exec()) ?? [];
  const valueAt = (index: number): unknown => {
    const [error, value] = answers[index] ?? [null, null];
    if (error !== null) throw error;
    return value;
  };
  const lastHour = { delivered: 0, retrying: 0, failed: 0 };
  for (let index = 0; index < HOUR_MINUTES; index += 1) {
    const [delivered, retrying, failed] = valueAt(index) as (string | null)[];
    lastHour.delivered += Number(delivered ?? 0);
    lastHour.retrying += Number(retrying ?? 0);
    lastHour.failed += Number(failed ?? 0);
  }
  const state = valueAt(HOUR_MINUTES) as Record<string, string>;
  return {
    lastHour,
    p95DeliveryMs: p95Of(
      valueAt(HOUR_MINUTES + 2) as string[],
      now - HOUR_MINUTES * MINUTE_MS,
      options.institution,
    ),
    last: lastResultOf(state[`last${suffix}`]),
    failing: failingOf(state),
    recentFailures: recentFailuresOf(valueAt(HOUR_MINUTES + 1) as string[], options),
  };
}

/** `<at> <ms> <institution>` entries of the hour (the institution's only, when given). */
function p95Of(
  entries: readonly string[],
  since: number,
  institution: string | undefined,
): number | null {
  const durations: number[] = [];
  for (const entry of entries) {
    const [at = '0', ms = '0', ...rest] = entry.split(' ');
    const of = rest.join(' ');
    if (Number(at) < since) continue;
    if (institution !== undefined && of !== institution) continue;
    durations.push(Number(ms));
  }
  if (durations.length === 0) return null;
  durations.sort((a, b) => a - b);
  return durations[Math.min(durations.length - 1, Math.ceil(durations.length * 0.95) - 1)] ?? null;
}

function lastResultOf(text: string | undefined): RouteFigures['last'] {
  if (text === undefined) return null;
  const last = JSON.parse(text) as {
    result: RecordedOutcome;
    at: number;
    attempt: number;
    eventId: string;
    error?: string;
  };
  return {
    result: last.result,
    at: new Date(last.at).toISOString(),
    attempt: last.attempt,
    eventId: last.eventId,
    error: last.error ?? null,
  };
}

function failingOf(state: Readonly<Record<string, string>>): RouteFigures['failing'] {
  const attempts = Number(state.failing ?? 0);
  if (attempts <= 0 || state.failingSince === undefined) return null;
  return {
    since: new Date(Number(state.failingSince)).toISOString(),
    attempts,
    lastError: state.lastError ?? '',
  };
}

function recentFailuresOf(
  entries: readonly string[],
  options: ReadRouteFiguresOptions,
): RouteFigures['recentFailures'] {
  const wanted = options.failures ?? 10;
  const found: RouteFigures['recentFailures'][number][] = [];
  for (const entry of entries) {
    if (found.length >= wanted) break;
    const attempt = JSON.parse(entry) as FiguresAttempt;
    if (options.institution !== undefined && attempt.institution !== options.institution) continue;
    found.push({
      at: new Date(attempt.at).toISOString(),
      eventId: attempt.eventId,
      institution: attempt.institution ?? null,
      jobId: attempt.jobId ?? null,
      attempt: attempt.number,
      outcome: attempt.outcome === 'failed' ? 'failed' : 'retrying',
      error: attempt.error ?? '',
    });
  }
  return found;
}
