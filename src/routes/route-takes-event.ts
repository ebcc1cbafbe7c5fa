import type { CanonicalEvent } from '../events/canonical-event';
import { isTestEvent } from '../events/test-event';
import { matchesRoute } from './match-route';
import type { RouteMatch } from './routes-file';

/** What of a route decides which events it takes. */
export interface RouteRule {
  readonly match: RouteMatch;
  /** The route takes `send-test-event`'s events too (routes file `testEvents: true`). */
  readonly testEvents?: boolean | undefined;
}

/**
 * The route takes the event: its `match:` holds (codes, institution, `where:`; match-route.ts),
 * and a test event only where the route opts in. The live fan-out (create-fan-out.ts) and every
 * replay (src/operations/replay-rule.ts) ask this one function, so a replay goes where the
 * route would have sent the event.
 */
export function routeTakesEvent(route: RouteRule, event: CanonicalEvent): boolean {
  if (isTestEvent(event) && route.testEvents !== true) return false;
  return matchesRoute(route.match, event);
}
