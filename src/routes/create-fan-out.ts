import type { JobsOptions, Queue } from 'bullmq';
import type { CanonicalEvent } from '../events/canonical-event';
import { matchesRoute, skippedByWhere } from './match-route';
import { ROUTE_BACKOFF } from './route-backoff';
import type { AnyRoute } from './routes-file';

/** Adds one delivery job per matching route; resolves with the names of the routes it matched. */
export type FanOut = (event: CanonicalEvent, jobId: string) => Promise<readonly string[]>;

export interface FanOutOptions {
  readonly routes: readonly { readonly route: AnyRoute; readonly queue: Queue }[];
  /**
   * Delivered jobs are kept this long (as the listener keeps event jobs), so that a fan-out run
   * again for the same event — the event job retried, replayed, or taken over after a crash —
   * finds them and adds nothing.
   */
  readonly keepCompletedHours: number;
  /** Called for each route the event's `where:` kept it from (the history's `skipped`). */
  readonly onSkipped?: (event: CanonicalEvent, route: string) => Promise<unknown>;
}

/** The job options of a route's deliveries: its attempts and backoff, a failed set kept for replay. */
export function routeJobOptions(route: AnyRoute, keepCompletedHours: number): JobsOptions {
  return {
    attempts: route.retry.attempts,
    backoff: { type: ROUTE_BACKOFF, delay: route.retry.backoffMs },
    removeOnComplete: { age: keepCompletedHours * 3600 },
    removeOnFail: false,
  };
}

/**
 * Fan-out from the event queue to the route queues. Each delivery job's id is the event job's id,
 * unique within its route's queue, and BullMQ's add is a no-op for an id the queue holds: a worker
 * killed between two adds and the event job run again adds the missing jobs and doubles none.
 * The adds go out together; if one fails the whole fan-out throws and the event job is retried.
 */
export function createFanOut({ routes, keepCompletedHours, onSkipped }: FanOutOptions): FanOut {
  const options = new Map(
    routes.map(({ route }) => [route.name, routeJobOptions(route, keepCompletedHours)]),
  );
  return async (event, jobId) => {
    const matched = routes.filter(({ route }) => matchesRoute(route.match, event));
    const skipped =
      onSkipped === undefined
        ? []
        : routes.filter(({ route }) => skippedByWhere(route.match, event));
    await Promise.all([
      ...matched.map(({ route, queue }) =>
        queue.add(event.action, event, { ...options.get(route.name), jobId }),
      ),
      ...skipped.map(({ route }) => onSkipped?.(event, route.name)),
    ]);
    return matched.map(({ route }) => route.name);
  };
}
