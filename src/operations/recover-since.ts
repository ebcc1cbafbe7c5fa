import { eventKinds } from '../events/kinds/event-kinds';
import type { RetentionDays } from '../history/prune-on-schedule';
import { recoveryFilters } from '../history/recovery-candidates';
import type { RecoveryWindow } from '../history/recovery-candidates';
import type { HistoryFilters } from '../history/history-filters';
import type { RouteMatch } from '../routes/routes-file';

/**
 * Events one recovery sends again at most: past it the run stops and says "more than", and the
 * operator narrows the window or runs it again (the events sent are no longer candidates).
 */
export const RECOVERY_CAP = 10_000;

/** What an operator asks: the route, the window, and the institution it is held to (if any). */
export interface RecoveryRequest {
  readonly route: { readonly name: string; readonly match: RouteMatch };
  readonly since: Date;
  readonly until?: Date | undefined;
  readonly institution?: string | undefined;
}

/** The window checked, or why it is refused: the field at fault and a reason naming the bound. */
export type RecoveryCheck =
  | { readonly window: RecoveryWindow }
  | { readonly refused: { readonly field: 'since' | 'until'; readonly reason: string } };

/**
 * The retention that bounds a route's events: the patron one when every action the route takes is
 * a patron kind (their events are gone sooner), else the general one.
 */
function retentionOfRoute(
  match: RouteMatch,
  retention: RetentionDays,
): { readonly days: number; readonly key: string } {
  const actions = match.action;
  const patronOnly =
    actions !== undefined &&
    actions.every((action) => eventKinds.find((kind) => kind.name === action)?.patron === true);
  return patronOnly
    ? { days: retention.patronDays, key: 'HISTORY_PATRON_RETENTION_DAYS' }
    : { days: retention.days, key: 'HISTORY_RETENTION_DAYS' };
}

/**
 * A recovery's window within what the history still holds: a `since` older than the route's
 * retention would promise events already dropped, so it is refused, naming the retention.
 */
export function checkRecovery(
  request: RecoveryRequest,
  retention: RetentionDays,
  now: Date,
): RecoveryCheck {
  const bound = retentionOfRoute(request.route.match, retention);
  const oldest = new Date(now.getTime() - bound.days * 86_400_000);
  if (request.since < oldest) {
    const reason =
      `--since ${request.since.toISOString()} is older than ${bound.key} ` +
      `(${String(bound.days)} days: nothing before ${oldest.toISOString()} is kept)`;
    return { refused: { field: 'since', reason } };
  }
  if (request.until !== undefined && request.until <= request.since) {
    return { refused: { field: 'until', reason: '--until must be later than --since' } };
  }
  return {
    window: {
      route: request.route.name,
      since: request.since,
      until: request.until,
      institution: request.institution,
    },
  };
}

/** What replayHistory takes to run a recovery: its filters, the cap, and its audit rows. */
export interface RecoveryRun {
  readonly filters: HistoryFilters;
  readonly atMost: number;
  readonly audit: { readonly action: 'recover'; readonly details: Record<string, unknown> };
}

/**
 * A recovery is a replay of the route's failed-and-never-delivered events (recoveryFilters), the
 * same path a replay of the route takes (its queue, its job options), capped and audited as
 * `recover` with its window.
 */
export function recoveryRun(window: RecoveryWindow): RecoveryRun {
  return {
    filters: recoveryFilters(window),
    atMost: RECOVERY_CAP,
    audit: {
      action: 'recover',
      details: {
        since: window.since.toISOString(),
        ...(window.until === undefined ? {} : { until: window.until.toISOString() }),
        cap: RECOVERY_CAP,
      },
    },
  };
}
