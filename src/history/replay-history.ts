import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { JobsOptions, Queue } from 'bullmq';
import type { CanonicalEvent } from '../events/canonical-event';
import { jobIdForEvent } from '../events/job-id-for-event';
import { historyBody } from './history-body';
import type { HistoryFilters } from './history-filters';
import { countHistory, searchHistory } from './search-history';
import type { HistoryContext, HistoryEventSummary } from './search-history';

/** Which events a replay sends: the route's rule (src/operations/replay-rule.ts), or every one. */
export type ReplayTakes = (event: CanonicalEvent) => boolean;

/** One of a dry run's newest events, and whether the route takes it. */
export interface ReplaySampleItem extends HistoryEventSummary {
  /** The route takes it; false too when no body is kept (nothing to send). */
  readonly routeTakes: boolean;
}

export interface ReplayDryRun {
  /** How many match the filters; with `countAtMost` and `more`, countAtMost (a floor). */
  readonly count: number;
  /** More than `countAtMost` events match: `count` is a floor, not the total. */
  readonly more: boolean;
  /** Of those read (every one, or the first countAtMost), how many the route takes. */
  readonly routeCount: number;
  /** The filters' events the route does not take, by action (with a body: those without are below). */
  readonly leftOut: Record<string, number>;
  /** Matching events whose body the history does not hold: a replay skips them. */
  readonly withoutBody: number;
  readonly sample: ReplaySampleItem[];
}

export interface ReplayPreviewOptions {
  /** The route's rule: the events it takes. */
  readonly takes: ReplayTakes;
  readonly sampleSize?: number;
  /** Counts and reads at most this many matching events (the counts are then floors). */
  readonly countAtMost?: number;
}

/**
 * The dry run of a replay: how many events match the filters, how many of them the route takes
 * (each body read and tested as the replay will), the actions it leaves out, and the newest few.
 */
export async function previewReplay(
  context: HistoryContext,
  filters: HistoryFilters,
  options: ReplayPreviewOptions,
): Promise<ReplayDryRun> {
  const { countAtMost, sampleSize = 10 } = options;
  const count = await countHistory(context, filters, countAtMost);
  const more = countAtMost !== undefined && count > countAtMost;
  const tally = { routeCount: 0, withoutBody: 0, leftOut: {} as Record<string, number> };
  const sample: ReplaySampleItem[] = [];
  let read = 0;
  await forEachMatching(context, filters, async (item) => {
    if (countAtMost !== undefined && read >= countAtMost) return false;
    read += 1;
    // The search says whether a body is kept: none to read (and test) when it is not.
    const event = item.hasBody ? await historyBody(context, item) : undefined;
    const routeTakes = event !== undefined && options.takes(event);
    if (event === undefined) tally.withoutBody += 1;
    else if (routeTakes) tally.routeCount += 1;
    else tally.leftOut[item.action] = (tally.leftOut[item.action] ?? 0) + 1;
    if (sample.length < sampleSize) sample.push({ ...item, routeTakes });
    return true;
  });
  return { count: more ? (countAtMost ?? count) : count, more, ...tally, sample };
}

/** Each matching event, newest first, page by page, until `visit` answers false. */
async function forEachMatching(
  context: HistoryContext,
  filters: HistoryFilters,
  visit: (item: HistoryEventSummary) => Promise<boolean>,
): Promise<void> {
  let after: string | undefined;
  do {
    const page = await searchHistory(context, {
      ...filters,
      limit: 200,
      ...(after === undefined ? {} : { after }),
    });
    for (const item of page.items) if (!(await visit(item))) return;
    after = page.next;
  } while (after !== undefined);
}

export interface ReplayOptions {
  /** The route's queue: routeQueueName(QUEUE_NAME, route) (src/routes/route-queue-name.ts). */
  readonly queue: Queue;
  readonly route: string;
  /** The route's attempts and backoff (routeJobOptions in src/routes/create-fan-out.ts). */
  readonly jobOptions: JobsOptions;
  /**
   * The events sent: the route's rule (replayRule in src/operations/replay-rule.ts), which an
   * operator may widen to every event explicitly. The others are counted as `leftOut`.
   */
  readonly takes: ReplayTakes;
  /** Deliveries queued per second at most (default 50). */
  readonly ratePerSecond?: number;
  readonly actor: string;
  /** The replay's id (the console names it before it starts); a new one by default. */
  readonly replayId?: string;
  readonly onProgress?: (progress: { queued: number; skipped: number; leftOut: number }) => void;
  /** Stops between two events (the console's shutdown); what was queued stays queued. */
  readonly signal?: AbortSignal;
  /** Handles at most this many events (queued or skipped); the result says `capped` past it. */
  readonly atMost?: number;
  /** The audit row's action (default `replay`; a recovery's is `recover`) and what it adds. */
  readonly audit?: { readonly action: string; readonly details: Record<string, unknown> };
}

export interface ReplayResult {
  readonly replayId: string;
  readonly queued: number;
  /** Matching events whose body the history does not hold (HISTORY_BODIES, or forgotten). */
  readonly skipped: number;
  /** Matching events the route does not take (its `match:`), not sent. */
  readonly leftOut: number;
  /** Stopped by its signal before every matching event was queued. */
  readonly stopped: boolean;
  /** Stopped at `atMost` with matching events left. */
  readonly capped: boolean;
}

/**
 * Delivers every matching event to one route again, oldest page first as found, from the bodies
 * the history holds — so it works on events older than any queue keeps. Each job gets a new id
 * (`evt-<id>-replay-<replay>`), so the route's de-duplication does not swallow it; the
 * destination still sees the event's own id and can de-duplicate. Recorded in the audit.
 */
export async function replayHistory(
  context: HistoryContext,
  filters: HistoryFilters,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const replayId = options.replayId ?? randomUUID().slice(0, 8);
  const gapMs = 1000 / Math.max(options.ratePerSecond ?? 50, 0.01);
  const atMost = options.atMost ?? Number.POSITIVE_INFINITY;
  const run = { queued: 0, skipped: 0, leftOut: 0, capped: false };
  let after: string | undefined;
  let nextAt = Date.now();
  const stopped = () => options.signal?.aborted === true;
  const progress = () =>
    options.onProgress?.({ queued: run.queued, skipped: run.skipped, leftOut: run.leftOut });
  do {
    const page = await searchHistory(context, {
      ...filters,
      limit: 200,
      ...(after === undefined ? {} : { after }),
    });
    for (const item of page.items) {
      if (stopped()) break;
      if (run.queued + run.skipped + run.leftOut >= atMost) {
        run.capped = true;
        break;
      }
      const event = await historyBody(context, item);
      if (event === undefined || !options.takes(event)) {
        run[event === undefined ? 'skipped' : 'leftOut'] += 1;
        progress();
        continue;
      }
      const wait = nextAt - Date.now();
      // The signal ends the wait at once (an abort rejects it; nothing to report).
      if (wait > 0) await delay(wait, undefined, { signal: options.signal }).catch(() => undefined);
      if (stopped()) break;
      nextAt = Math.max(nextAt, Date.now() - gapMs) + gapMs;
      await options.queue.add(event.action, event, {
        ...options.jobOptions,
        jobId: `${jobIdForEvent(event.id)}-replay-${replayId}`,
      });
      run.queued += 1;
      progress();
    }
    after = stopped() || run.capped ? undefined : page.next;
  } while (after !== undefined);
  const result = { replayId, ...run, stopped: stopped() };
  await auditReplay(context, filters, options, result);
  return result;
}

/** The replay's row in the audit: who, the route, how many queued, and how it ended. */
async function auditReplay(
  context: HistoryContext,
  filters: HistoryFilters,
  options: ReplayOptions,
  result: ReplayResult,
): Promise<void> {
  await context.db.query(
    `INSERT INTO audit (record_id, at, actor, action, target, details, count)
     VALUES (gen_random_uuid()::text, now(), $1, $2, $3, $4::jsonb, $5)`,
    [
      options.actor,
      options.audit?.action ?? 'replay',
      options.route,
      JSON.stringify({
        replayId: result.replayId,
        filters: auditFilters(filters),
        skipped: result.skipped,
        leftOut: result.leftOut,
        ...options.audit?.details,
        ...(result.stopped ? { stopped: true } : {}),
        ...(result.capped ? { capped: true } : {}),
      }),
      result.queued,
    ],
  );
}

/** The filters as the audit (and the console's replay progress) keep them: no person's id. */
export function auditFilters(filters: HistoryFilters): Record<string, unknown> {
  const { user, ...rest } = filters;
  return { ...rest, ...(user === undefined ? {} : { user: '(a person, by hash)' }) };
}
