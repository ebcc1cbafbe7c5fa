import type { AnyRoute } from './routes-file';

/** Every adapter's default `timeoutMs` is at most this (destinations/*.ts). */
const LONGEST_DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The longest one delivery of `route` can take before its destination settles it: the adapters
 * bound opening the connection and the send by `timeoutMs` each, and a second is left for the
 * answer to be read. A late inline attempt's route job is held this long (settle-late-attempt.ts).
 */
export function deliveryBoundMs(route: Pick<AnyRoute, 'to'>): number {
  const { options } = route.to;
  const timeoutMs =
    typeof options === 'object' &&
    options !== null &&
    'timeoutMs' in options &&
    typeof options.timeoutMs === 'number'
      ? options.timeoutMs
      : LONGEST_DEFAULT_TIMEOUT_MS;
  return 2 * timeoutMs + 1000;
}
