import type { RequestHandler } from 'express';
import { SandboxError } from './sandbox-error';

export interface GovernanceOptions {
  /** Calls allowed per day; counted down in `X-Svc-Api-Remaining` (spec §1 rule 3). */
  readonly dailyBudget: number;
  /** Calls allowed in one wall-clock second before 429 (docs/platform-shapes.md). */
  readonly ratePerSecond: number;
  readonly now: () => Date;
}

export interface Governance {
  readonly middleware: RequestHandler;
  readonly remaining: () => number;
  readonly reset: () => void;
}

/**
 * Every accepted call spends one unit of the daily budget; the header shows what is left. A call
 * refused with 429 (per-second threshold, or budget spent) does not spend. The budget is refilled
 * when the UTC day changes.
 */
export function createGovernance({
  dailyBudget,
  ratePerSecond,
  now,
}: GovernanceOptions): Governance {
  let remaining = dailyBudget;
  let day = '';
  let second = -1;
  let callsThisSecond = 0;

  const middleware: RequestHandler = (_req, res, next) => {
    const at = now();
    const today = at.toISOString().slice(0, 10);
    if (today !== day) {
      day = today;
      remaining = dailyBudget;
    }
    const thisSecond = Math.floor(at.getTime() / 1000);
    if (thisSecond !== second) {
      second = thisSecond;
      callsThisSecond = 0;
    }
    res.setHeader('X-Svc-Api-Remaining', String(remaining));
    if (remaining <= 0) {
      res.setHeader('Retry-After', String(secondsToMidnight(at)));
      next(new SandboxError(429, 'DAILY_THRESHOLD', 'Daily API threshold reached'));
      return;
    }
    if (callsThisSecond >= ratePerSecond) {
      res.setHeader('Retry-After', '1');
      next(new SandboxError(429, 'PER_SECOND_THRESHOLD', 'Per-second API threshold reached'));
      return;
    }
    callsThisSecond += 1;
    remaining -= 1;
    res.setHeader('X-Svc-Api-Remaining', String(remaining));
    next();
  };

  return {
    middleware,
    remaining: () => remaining,
    reset: () => {
      remaining = dailyBudget;
      callsThisSecond = 0;
    },
  };
}

function secondsToMidnight(at: Date): number {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - at.getTime()) / 1000));
}
