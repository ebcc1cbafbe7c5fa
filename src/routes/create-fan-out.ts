import type { Queue } from 'bullmq';
import type { CanonicalEvent } from '../events/canonical-event';
import type { AttemptOutcome } from './attempt-delivery';
import type { FairPriorities } from './fair-priorities';
import type { InlineRoute } from './inline-route';
import type { Logger } from '../logger';
import { settleLateAttempt } from './settle-late-attempt';
import type { LateAttempt } from './settle-late-attempt';
import { skippedByWhere } from './match-route';
import { routeTakesEvent } from './route-takes-event';
import { ROUTE_BACKOFF, routeBackoff } from './route-backoff';
import type { RouteJobOptions } from './route-job-options';
import type { AnyRoute } from './routes-file';
import { eventLineFields } from '../events/event-line-fields';

/**
 * Delivers one event to every matching route — the first attempt inline where the route takes
 * it, a route job for the rest; resolves with the names of the routes it matched.
 */
export type FanOut = (event: CanonicalEvent, jobId: string) => Promise<readonly string[]>;

export interface FanOutRoute {
  readonly route: AnyRoute;
  readonly queue: Queue;
  /** Present when this process makes first attempts inline (ROUTE_INLINE). */
  readonly inline?: InlineRoute;
}

export interface FanOutOptions {
  readonly routes: readonly FanOutRoute[];
  /**
   * Delivered jobs are kept this long (as the listener keeps event jobs), so that a fan-out run
   * again for the same event — the event job retried, replayed, or taken over after a crash —
   * finds them and adds nothing.
   */
  readonly keepCompletedHours: number;
  /** Called for each route the event's `where:` kept it from (the history's `skipped`). */
  readonly onSkipped?: (event: CanonicalEvent, route: string) => Promise<unknown>;
  /**
   * A process serving several institutions (fair-priorities.ts): each route job gets a priority
   * that takes the route's deliveries round-robin across institutions. Absent: no priority, and
   * no command more than the adds.
   */
  readonly fair?: FairPriorities;
  /** Where a late inline attempt's route job that could not follow its outcome is said. */
  readonly logger: Logger;
}

/** The job options of a route's deliveries: its attempts and backoff, a failed set kept for replay. */
export function routeJobOptions(route: AnyRoute, keepCompletedHours: number): RouteJobOptions {
  return {
    attempts: route.retry.attempts,
    backoff: { type: ROUTE_BACKOFF, delay: route.retry.backoffMs },
    removeOnComplete: { age: keepCompletedHours * 3600 },
    removeOnFail: false,
  };
}

/**
 * Fan-out from the event queue to the routes (docs/routing.md, "How a delivery is scheduled").
 * The inline attempts run side by side, each ending by the inline deadline; what they did not
 * deliver becomes route jobs, one add (an `addBulk` for several) per route queue. Each delivery job's id is
 * the event job's id, unique within its route's queue, and BullMQ's add is a no-op for an id the
 * queue holds: a worker killed between two adds and the event job run again adds the missing jobs
 * and doubles none. If an add fails the whole fan-out throws and the event job is retried.
 */
export function createFanOut({
  routes,
  keepCompletedHours,
  onSkipped,
  fair,
  logger,
}: FanOutOptions): FanOut {
  const options = new Map(
    routes.map(({ route }) => [route.name, routeJobOptions(route, keepCompletedHours)]),
  );
  return async (event, jobId) => {
    const matched = routes.filter(({ route }) => routeTakesEvent(route, event));
    // Recorded beside the deliveries (one outbox XADD each, history on), awaited before it ends.
    const recordingSkips = noteSkips(routes, event, { onSkipped, logger });
    const late: LateAttempt[] = [];
    const jobs = await Promise.all(
      matched.map(async ({ route, queue, inline }) => {
        const base = options.get(route.name) ?? routeJobOptions(route, keepCompletedHours);
        if (inline === undefined || !(await inline.ready())) return { queue, opts: base };
        const outcome = await inline.attempt(event);
        if (outcome.kind !== 'late') return { queue, opts: afterInline(outcome, base) };
        const { settled, holdMs } = outcome;
        late.push({ queue, jobId, settled, jobOptionsAfter: (end) => afterInline(end, base) });
        // Held while the attempt may still deliver; settleLateAttempt lets it go or removes it.
        return { queue, opts: { ...retryOptions(base), delay: holdMs } };
      }),
    );
    const byQueue = new Map<Queue, RouteJobOptions[]>();
    for (const { queue, opts } of jobs) {
      if (opts !== undefined) byQueue.set(queue, [...(byQueue.get(queue) ?? []), opts]);
    }
    await addRouteJobs(await withPriorities(byQueue, event, fair), event, jobId);
    for (const one of late) void settleLateAttempt(one, logger);
    await recordingSkips;
    return matched.map(({ route }) => route.name);
  };
}

/**
 * The routes whose `where:` kept the event from them: one line each (outcome `skipped`, the
 * attempt lines' fields), and the history's `skipped` when it is on.
 */
function noteSkips(
  routes: readonly FanOutRoute[],
  event: CanonicalEvent,
  { onSkipped, logger }: { onSkipped: FanOutOptions['onSkipped'] | undefined; logger: Logger },
): Promise<unknown> {
  const skipped = routes.filter(({ route }) => skippedByWhere(route.match, event));
  if (skipped.length === 0) return Promise.resolve();
  const about = eventLineFields(event);
  for (const { route } of skipped) {
    logger.info(
      { ...about, route: route.name, outcome: 'skipped' },
      'route skipped: its where: does not take the event',
    );
  }
  return onSkipped === undefined
    ? Promise.resolve()
    : Promise.all(skipped.map(({ route }) => onSkipped(event, route.name)));
}

/** One add per route queue (an `addBulk` for several jobs), each job with the event job's id. */
async function addRouteJobs(
  byQueue: ReadonlyMap<Queue, readonly RouteJobOptions[]>,
  event: CanonicalEvent,
  jobId: string,
): Promise<void> {
  await Promise.all(
    [...byQueue].map(([queue, all]) =>
      // One job is one script call; addBulk wraps its calls in MULTI/EXEC, two commands more.
      all.length === 1 && all[0] !== undefined
        ? queue.add(event.action, event, { ...all[0], jobId })
        : queue.addBulk(
            all.map((opts) => ({ name: event.action, data: event, opts: { ...opts, jobId } })),
          ),
    ),
  );
}

/** The jobs with their institution's round-robin priority on each queue, when `fair` is given. */
async function withPriorities(
  byQueue: Map<Queue, RouteJobOptions[]>,
  event: CanonicalEvent,
  fair: FairPriorities | undefined,
): Promise<Map<Queue, RouteJobOptions[]>> {
  if (fair === undefined || byQueue.size === 0) return byQueue;
  const queues = [...byQueue.keys()];
  const priorities = await fair(event.institution?.value ?? '', queues);
  return new Map(
    queues.map((queue, index) => [
      queue,
      (byQueue.get(queue) ?? []).map((opts) => ({ ...opts, priority: priorities[index] ?? 0 })),
    ]),
  );
}

/**
 * The route job an inline attempt leaves: none when delivered; attempt 2 onwards after the
 * route's first backoff step when it may be retried; a job that fails at once into the route's
 * failed set (kept for replay) when the attempt ended the delivery.
 */
function afterInline(outcome: AttemptOutcome, base: RouteJobOptions): RouteJobOptions | undefined {
  switch (outcome.kind) {
    case 'delivered':
      return undefined;
    case 'retry': {
      const error = outcome.error instanceof Error ? outcome.error : undefined;
      const opts = retryOptions(base);
      return { ...opts, delay: routeBackoff(0, ROUTE_BACKOFF, error, { opts }) };
    }
    case 'failed':
      return { ...base, attempts: 1, attemptOffset: 1, inlineFailure: outcome.reason };
  }
}

/** Attempt 2 onwards: the attempts left after the inline one, numbered on from it. */
function retryOptions(base: RouteJobOptions): RouteJobOptions {
  return { ...base, attempts: Math.max(1, (base.attempts ?? 1) - 1), attemptOffset: 1 };
}
