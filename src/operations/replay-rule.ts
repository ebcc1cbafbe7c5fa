import type { ReplayTakes } from '../history/replay-history';
import { routeTakesEvent } from '../routes/route-takes-event';
import type { RouteRule } from '../routes/route-takes-event';

/** Which events a replay sends to a route, and what its audit row says of that. */
export interface ReplayRule {
  readonly takes: ReplayTakes;
  /** Added to the replay's audit rows: `ignoreRouteMatch: true` when the rule was widened. */
  readonly auditDetails: Record<string, unknown>;
}

/**
 * A replay goes where the route would have sent the event: the live fan-out's own test
 * (routeTakesEvent: `match:` with its codes, institution and `where:`). Sending every event the
 * filters find, those the route does not take too, is the operator's explicit choice
 * (`--ignore-route-match`, `ignoreRouteMatch`), and the audit row says so.
 */
export function replayRule(route: RouteRule, ignoreRouteMatch: boolean): ReplayRule {
  if (ignoreRouteMatch) return { takes: () => true, auditDetails: { ignoreRouteMatch: true } };
  return { takes: (event) => routeTakesEvent(route, event), auditDetails: {} };
}
