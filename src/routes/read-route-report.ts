import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import { readRouteFigures } from './read-route-figures';
import type { ReadRouteFiguresOptions, RouteFigures } from './read-route-figures';
import { readRouteState } from './route-state';
import type { RouteState } from './route-state';
import type { AnyRoute } from './routes-file';

/** A route's figures and its state, as the CLI, the console, the API and the metrics show them. */
export interface RouteReport {
  readonly figures: RouteFigures;
  readonly state: RouteState;
}

/**
 * readRouteFigures, then readRouteState judged on those figures: one call for whoever shows a
 * route (the CLI's `routes`, the console's overview and routes page, `/api/v1/routes`,
 * `/api/v1/overview`, `svcws_route_state`). The state is every institution's (a pause, a circuit
 * and a run of failures hold the whole route); the figures are `options.institution`'s if given.
 */
export async function readRouteReport(
  connection: RedisClient,
  queue: Queue,
  route: Pick<AnyRoute, 'ratePerSecond' | 'circuit'>,
  options: ReadRouteFiguresOptions = {},
): Promise<RouteReport> {
  const figures = await readRouteFigures(connection, queue, options);
  return { figures, state: await readRouteState(connection, queue, route, figures) };
}
