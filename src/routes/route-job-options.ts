import type { JobsOptions, MinimalJob } from 'bullmq';

/**
 * The options of a route job. Two are this project's own: BullMQ stores options it does not know
 * as given and reads them back with the job (optsAsJSON / optsFromJSON in BullMQ's
 * redis-queue-backend.js), in the same job hash, so they cost no command.
 */
export interface RouteJobOptions extends JobsOptions {
  /**
   * Attempts made inline, before the job was added (docs/routing.md, "How a delivery is
   * scheduled"): the job's first run is attempt `attemptOffset + 1`, and `attempts` counts what
   * is left.
   */
  readonly attemptOffset?: number;
  /**
   * The inline attempt already ended the delivery (not retryable, or no attempt left): the job's
   * first run fails with this reason, without delivering, so the delivery waits in the route's
   * failed set for a replay like any other.
   */
  readonly inlineFailure?: string;
}

/**
 * Hours a route's delivered jobs are kept, as long as the listener keeps event jobs (48 h): what
 * fan-out, `history replay` and the console's replay by query all give routeJobOptions.
 */
export const KEEP_COMPLETED_HOURS = 48;

/** Attempts made before the job's first run (inline); 0 for a job added without one. */
export function attemptOffsetOf(job: Pick<MinimalJob, 'opts'>): number {
  const { opts } = job;
  return 'attemptOffset' in opts && typeof opts.attemptOffset === 'number' ? opts.attemptOffset : 0;
}

/** The reason the inline attempt ended the delivery, if it did. */
export function inlineFailureOf(job: Pick<MinimalJob, 'opts'>): string | undefined {
  const { opts } = job;
  return 'inlineFailure' in opts && typeof opts.inlineFailure === 'string'
    ? opts.inlineFailure
    : undefined;
}
