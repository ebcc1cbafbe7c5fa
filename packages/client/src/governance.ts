import type { ClientLogger } from './client-logger';

/** The header every successful response carries (spec §1.3, §8 "Governance threshold"). */
const REMAINING_HEADER = 'x-svc-api-remaining';

export interface Governance {
  /** Reads the header of a response (any status); ignores a missing or non-integer value. */
  observe(header: (name: string) => string | undefined): number | undefined;
  /** The latest value seen, or undefined before the first. */
  remaining(): number | undefined;
}

export interface GovernanceOptions {
  logger: ClientLogger | undefined;
  /** Warn when the remaining calls fall under this (SVC_REMAINING_FLOOR). */
  floor: number | undefined;
  onRemaining: ((remaining: number) => void) | undefined;
}

/**
 * Tracks the governance budget. The warning fires once per crossing under the floor and re-arms
 * when the value climbs back to it (a new period): a log line per call would drown the log exactly
 * when the budget runs low.
 */
export function createGovernance({ logger, floor, onRemaining }: GovernanceOptions): Governance {
  let latest: number | undefined;
  let below = false;
  return {
    observe(header) {
      const raw = header(REMAINING_HEADER);
      if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return undefined;
      const value = Number(raw);
      latest = value;
      if (floor !== undefined) {
        if (value < floor && !below) {
          below = true;
          logger?.warn(
            { remaining: value, floor },
            'governance: remaining API calls fell under the floor',
          );
        } else if (value >= floor) {
          below = false;
        }
      }
      try {
        onRemaining?.(value);
      } catch (error) {
        // A faulty observer must not fail a call that succeeded.
        logger?.warn({ err: error }, 'governance: onRemaining threw');
      }
      return value;
    },
    remaining: () => latest,
  };
}
