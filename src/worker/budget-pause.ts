import type { Logger } from '../logger';

export interface BudgetPauseOptions {
  /** SVC_REMAINING_FLOOR */
  readonly floor: number;
  /** How long processing stops before a job is let through to read the header again. */
  readonly pauseMs: number;
  /** The latest `X-Svc-Api-Remaining` (the client's `remaining()`). */
  readonly remaining: () => number | undefined;
  /** Stops every worker of the queue from taking jobs for `ms` (BullMQ's queue rate limit). */
  readonly rateLimit: (ms: number) => Promise<void>;
  readonly logger: Logger;
}

export interface BudgetPause {
  /** Called after every job: pauses while the budget is under the floor. */
  check(): Promise<void>;
}

/**
 * Governance (spec §8): when `X-Svc-Api-Remaining` falls under the floor, job processing pauses
 * for `pauseMs` through the queue's rate limit, so every worker of the queue stops, and the job
 * in flight finishes. The header only comes with an answer, so the budget is seen again only by
 * making a call: after the pause the next job runs as the probe, and its answer either resumes
 * processing (at or above the floor) or pauses it again. One warning when the pause starts, one
 * line when processing resumes.
 */
export function createBudgetPause(options: BudgetPauseOptions): BudgetPause {
  let paused = false;
  return {
    async check() {
      const remaining = options.remaining();
      if (remaining === undefined) return;
      if (remaining < options.floor) {
        if (!paused) {
          options.logger.warn(
            { remaining, floor: options.floor, pauseMs: options.pauseMs },
            'API budget under the floor: pausing job processing',
          );
        }
        paused = true;
        await options.rateLimit(options.pauseMs);
        return;
      }
      if (paused) {
        paused = false;
        options.logger.info(
          { remaining, floor: options.floor },
          'API budget back at the floor: job processing resumed',
        );
      }
    },
  };
}
