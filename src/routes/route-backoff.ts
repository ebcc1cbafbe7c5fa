import type { MinimalJob } from 'bullmq';
import { DeliveryError } from './delivery-error';

/** The backoff type route jobs carry; the route worker resolves it with `routeBackoff`. */
export const ROUTE_BACKOFF = 'route';

/**
 * Exponential from the route's `backoffMs` (1×, 2×, 4×, …), with jitter so the deliveries a
 * destination failed together do not come back together: each delay is drawn between half and
 * all of its step. A destination that named its own wait (`Retry-After` on a 429) gets that wait.
 */
export function routeBackoff(
  attemptsMade: number,
  _type?: string,
  error?: Error,
  job?: MinimalJob,
): number {
  if (error instanceof DeliveryError && error.retryAfterMs !== undefined) return error.retryAfterMs;
  const backoff = job?.opts.backoff;
  const base = typeof backoff === 'number' ? backoff : (backoff?.delay ?? 5000);
  const step = base * 2 ** Math.max(0, attemptsMade - 1);
  return Math.round(step * (0.5 + Math.random() * 0.5));
}
