import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import { circuitStateOf } from './circuit-breaker';
import type { RouteFigures } from './read-route-figures';
import { routeWaitingCount } from './route-waiting-count';
import type { AnyRoute } from './routes-file';

/** What a route is doing now, most telling first (docs/routing.md "A route's state"). */
export const ROUTE_STATES = [
  'paused',
  'circuit open',
  'failing',
  'rate-limited',
  'running',
] as const;
export type RouteStateName = (typeof ROUTE_STATES)[number];

export interface RouteState {
  readonly state: RouteStateName;
  /** The run of failed attempts since the last delivery (also while paused or open). */
  readonly failing: RouteFigures['failing'];
  /** When the open circuit lets its next probe go; null unless open. */
  readonly circuitOpenUntil: string | null;
}

/** What the state is judged from: each read from Redis, so every process sees the same. */
export interface RouteStateFacts {
  /** BullMQ's queue pause (`routes pause`, the console, the API). */
  readonly paused: boolean;
  readonly circuit: { readonly open: boolean; readonly probeAt: number | undefined };
  /** Deliveries wait and the route's `ratePerSecond` window is running. */
  readonly rateLimited: boolean;
  readonly figures: Pick<RouteFigures, 'failing'>;
}

/**
 * The one judgement of a route's state: paused (an operator said so), circuit open (the breaker
 * holds its deliveries until a probe), failing (its latest attempts all failed), rate-limited
 * (a backlog paced by `ratePerSecond`), running.
 */
export function routeState(facts: RouteStateFacts): RouteState {
  const { failing } = facts.figures;
  const circuitOpenUntil =
    facts.circuit.open && facts.circuit.probeAt !== undefined
      ? new Date(facts.circuit.probeAt).toISOString()
      : null;
  const state: RouteStateName = facts.paused
    ? 'paused'
    : facts.circuit.open
      ? 'circuit open'
      : failing !== null
        ? 'failing'
        : facts.rateLimited
          ? 'rate-limited'
          : 'running';
  return { state, failing, circuitOpenUntil };
}

/** Reads the facts of one route (a few commands) and judges its state with routeState. */
export async function readRouteState(
  connection: RedisClient,
  queue: Queue,
  route: Pick<AnyRoute, 'ratePerSecond' | 'circuit'>,
  figures: Pick<RouteFigures, 'failing'>,
): Promise<RouteState> {
  const [paused, circuit, rateLimited] = await Promise.all([
    queue.isPaused(),
    route.circuit === 'off'
      ? { open: false, probeAt: undefined }
      : circuitStateOf(connection, queue),
    route.ratePerSecond === undefined ? false : isRateLimited(queue),
  ]);
  return routeState({ paused, circuit, rateLimited, figures });
}

async function isRateLimited(queue: Queue): Promise<boolean> {
  const [waiting, ttl] = await Promise.all([routeWaitingCount(queue), queue.getRateLimitTtl()]);
  return waiting > 0 && ttl > 0;
}
