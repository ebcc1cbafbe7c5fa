import type { CanonicalEvent } from '../events/canonical-event';
import { matchesWhere } from './match-where';
import type { RouteMatch } from './routes-file';

/**
 * Every condition given must hold; `{}` takes every event. Actions compare in their canonical
 * lower case (the file may say `LOAN`); event and institution codes compare exactly. An event that
 * lacks a field a condition names does not match. `where:` conditions are tested last: the codes
 * above are cheaper and rule most events out.
 */
export function matchesRoute(match: RouteMatch, event: CanonicalEvent): boolean {
  if (match.action !== undefined && !match.action.includes(event.action)) return false;
  if (match.event !== undefined && !includesValue(match.event, event.event?.value)) return false;
  if (
    match.institution !== undefined &&
    !includesValue(match.institution, event.institution?.value)
  )
    return false;
  if (match.where !== undefined && !matchesWhere(match.where, event)) return false;
  return true;
}

/**
 * The event matched every condition of the route but its `where:` (the history records the route
 * as skipped by filter, docs/history.md); a route without `where:` is never skipped.
 */
export function skippedByWhere(match: RouteMatch, event: CanonicalEvent): boolean {
  if (match.where === undefined) return false;
  const { where: _where, ...codes } = match;
  return matchesRoute(codes, event) && !matchesWhere(match.where, event);
}

function includesValue(allowed: readonly string[], value: string | undefined): boolean {
  return value !== undefined && allowed.includes(value);
}
