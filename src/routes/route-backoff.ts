import type { MinimalJob } from 'bullmq';
import { DeliveryError } from './delivery-error';
import { attemptOffsetOf } from './route-job-options';

/** The backoff type route jobs carry; the route worker resolves it with `routeBackoff`. */
export const ROUTE_BACKOFF = 'route';

/**
 * Exponential from the route's `backoffMs` (1×, 2×, 4×, …), with jitter so the deliveries a
 * destination failed together do not come back together: each delay is drawn between half and
 * all of its step. A destination that named its own wait (`Retry-After` on a 429) gets that wait.
 * `attemptsMade` counts the job's own runs; attempts made inline before the job existed
 * (route-job-options.ts) count too, so the steps go on where the inline attempt left them.
 */
export function routeBackoff(
  attemptsMade: number,
  _type?: string,
  error?: Error,
  job?: Pick<MinimalJob, 'opts'>,
): number {
  if (error instanceof DeliveryError && error.retryAfterMs !== undefined) return error.retryAfterMs;
  const backoff = job?.opts.backoff;
  const base = typeof backoff === 'number' ? backoff : (backoff?.delay ?? 5000);
  const made = attemptsMade + (job === undefined ? 0 : attemptOffsetOf(job));
  const step = base * 2 ** Math.max(0, made - 1);
  return Math.round(step * (0.5 + Math.random() * 0.5));
}
