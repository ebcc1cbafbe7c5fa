import { countOf } from '../count-of';
import type { ReplayDryRun } from '../history/replay-history';

/**
 * A dry run in words, as the CLI prints it and the console shows it: both numbers, the actions
 * the route leaves out, and what a replay would send ("23 events match your filter; 8 of them
 * match route loans; left out: 10 job_end, 5 user"; "1 event matches …; 1 of them matches …").
 */
export function replayDryRunText(
  dry: ReplayDryRun,
  route: string,
  ignoreRouteMatch: boolean,
  /**
   * What the first number counts, for one and for more (a recovery's: "failed on route loans and
   * never succeeded since" for both).
   */
  matched: { one: string; many: string } = {
    one: 'matches your filter',
    many: 'match your filter',
  },
) {
  const floor = dry.more ? 'more than ' : '';
  const leftOut = Object.entries(dry.leftOut)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([action, n]) => `${String(n)} ${action}`);
  const notTaken = dry.count - dry.routeCount - dry.withoutBody;
  const parts = [
    `${floor}${countOf(dry.count, 'event')} ${dry.count === 1 ? matched.one : matched.many}; ${String(dry.routeCount)} of them ${dry.routeCount === 1 ? 'matches' : 'match'} route ${route}`,
    ...(leftOut.length === 0
      ? []
      : [
          `${ignoreRouteMatch ? 'not for the route, sent anyway' : 'left out'}: ${leftOut.join(', ')}`,
        ]),
    ...(dry.withoutBody === 0 ? [] : [`${String(dry.withoutBody)} without a stored body`]),
  ];
  const sends = ignoreRouteMatch ? dry.count - dry.withoutBody : dry.routeCount;
  return {
    summary: parts.join('; '),
    /** How many a replay would send (a floor with `more`). */
    sends,
    /** How many of those the route does not take (only with ignoreRouteMatch). */
    outsideRoute: ignoreRouteMatch ? Math.max(0, notTaken) : 0,
  };
}
