import type { RouteOverview } from '../data/console-views';
import { html } from './html';
import type { Html } from './html';

/**
 * A route's state and why, as the CLI's `routes` says it: failing since when, how many attempts,
 * the last error; circuit open until when.
 */
export function routeStateText(
  route: Pick<RouteOverview, 'state' | 'failing' | 'circuitOpenUntil'>,
): Html {
  const { state, failing, circuitOpenUntil } = route;
  const name = html`<strong class="state-${state.replace(' ', '-')}">${state}</strong>`;
  if (state === 'circuit open' && circuitOpenUntil !== null) {
    return html`${name} <small>until ${circuitOpenUntil}</small>`;
  }
  if (failing === null) return name;
  return html`${name}
    <small
      >${state === 'failing' ? '' : 'failing '}since ${failing.since}, ${failing.attempts} attempts
      failed</small
    ><br /><span class="reason">${failing.lastError}</span>`;
}
