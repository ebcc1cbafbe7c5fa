import type { RouteView } from '../data/console-views';
import { html } from './html';
import type { Html } from './html';
import { actionButton, columnsTable } from './layout';
import type { PageContext } from './layout';
import { routeStateText } from './route-state-text';

export function routesPage(ctx: PageContext, routes: readonly RouteView[]): Html {
  if (routes.length === 0) return html`<p>No routes (ROUTES_FILE is not set).</p>`;
  return html`${routes.map((route) => routeSection(ctx, route))}`;
}

function routeSection(ctx: PageContext, route: RouteView): Html {
  const path = `/routes/${encodeURIComponent(route.name)}`;
  return html`<section id="route-${route.name}" aria-labelledby="h-${route.name}">
    <h2 id="h-${route.name}">
      ${route.name} <small class="state-${route.state.replace(' ', '-')}">(${route.state})</small>
    </h2>
    <p>State: ${routeStateText(route)}</p>
    ${settingsTable(route)}
    <p>
      ${
        route.state === 'paused'
          ? actionButton(ctx, `${path}/resume`, `Resume ${route.name}`)
          : actionButton(ctx, `${path}/pause`, `Pause ${route.name}`)
      }
      ${route.counts.failed > 0 ? actionButton(ctx, `${path}/replay`, `Replay failed deliveries of ${route.name}`) : ''}
    </p>
    <h3>Recent failed attempts</h3>
    ${
      route.recentFailures.length === 0
        ? html`<p>None.</p>`
        : failuresTable(ctx, route.recentFailures)
    }
  </section>`;
}

function settingsTable(route: RouteView): Html {
  const match = Object.entries(route.match)
    .map(([field, values]) => `${field} ∈ {${(values as string[]).join(', ')}}`)
    .join(' and ');
  return html`<table>
    <tr>
      <th scope="row">Destination</th>
      <td>${route.destination.kind}: ${route.destination.target}</td>
    </tr>
    <tr>
      <th scope="row">Match</th>
      <td>${match === '' ? 'every event' : match}</td>
    </tr>
    <tr>
      <th scope="row">Retry</th>
      <td>${route.retry.attempts} attempts, backoff from ${route.retry.backoffMs} ms</td>
    </tr>
    <tr>
      <th scope="row">Rate</th>
      <td>
        ${route.ratePerSecond === null ? 'unlimited' : `${String(route.ratePerSecond)}/s`},
        ${route.concurrency} at once per worker
      </td>
    </tr>
    <tr>
      <th scope="row">Queue now</th>
      <td>
        waiting ${route.counts.waiting} · active ${route.counts.active} · delayed
        ${route.counts.delayed} · failed ${route.counts.failed}
      </td>
    </tr>
    <tr>
      <th scope="row">Attempts, last hour</th>
      <td>
        delivered ${route.lastHour.delivered} · retrying ${route.lastHour.retrying} · failed
        ${route.lastHour.failed} (inline and queued) · p95
        ${route.p95DeliveryMs === null ? '—' : `${String(route.p95DeliveryMs)} ms`}
      </td>
    </tr>
  </table>`;
}

/** An inline attempt has no route job: its event's history page replays it (when history is on). */
function failuresTable(ctx: PageContext, failures: RouteView['recentFailures']): Html {
  return columnsTable(
    ['Delivery (job)', 'Event', 'Institution', 'Attempt', 'Failed at', 'Reason'],
    failures.map(
      (failure) =>
        html`<tr>
          <td>${failure.jobId ?? 'inline attempt'}</td>
          <td>${eventCell(ctx, failure)}</td>
          <td>${failure.institution ?? '—'}</td>
          <td>${failure.attemptsMade} (${failure.outcome})</td>
          <td>${failure.failedAt ?? '—'}</td>
          <td class="reason">${failure.reason}</td>
        </tr>`,
    ),
  );
}

function eventCell(ctx: PageContext, failure: RouteView['recentFailures'][number]): Html | string {
  if (failure.eventId === null) return '—';
  if (!ctx.historyOn || failure.institution === null) return failure.eventId;
  const href = `/events/${encodeURIComponent(failure.institution)}/${encodeURIComponent(failure.eventId)}`;
  return html`<a href="${href}">${failure.eventId}</a>`;
}
