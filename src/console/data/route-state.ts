import type { Queue } from 'bullmq';
import type { RouteView } from './console-views';

/**
 * running or paused (BullMQ's queue pause, as `routes pause` sets it), or circuit open when a
 * circuit breaker is given and says so for this route.
 */
export async function routeStateOf(
  queue: Queue,
  route: string,
  circuitOpen: ((route: string) => Promise<boolean>) | undefined,
): Promise<RouteView['state']> {
  if (await queue.isPaused()) return 'paused';
  if (circuitOpen !== undefined && (await circuitOpen(route).catch(() => false))) {
    return 'circuit open';
  }
  return 'running';
}
