import type { RouteView } from '../data/console-views';
import type { RoutesRunView } from '../data/routes-run-view';
import { html } from './html';
import type { Html } from './html';
import { actionButton, columnsTable } from './layout';
import type { PageContext } from './layout';
import { routeStateText } from './route-state-text';

/**
 * The console's routes (its routes file, read at its start) with their figures, and what the
 * workers say they run now (routes-run-registry.ts): a route only the workers know, a route no
 * worker runs, and workers that read different versions of the file.
 */
export function routesPage(
  ctx: PageContext,
  routes: readonly RouteView[],
  run: RoutesRunView,
): Html {
  if (routes.length === 0 && run.workers.length === 0) {
    return html`<p>No routes (ROUTES_FILE is not set, and no worker says it runs any).</p>`;
  }
  const notRun = new Set(run.runByNoWorker);
  return html`${workersSection(run, routes.length)}
  ${run.unknownToConsole.map((one) => unknownRouteSection(one))}
  ${routes.map((route) => routeSection(ctx, route, notRun.has(route.name)))}`;
}

/** Which workers run which routes, and the warnings when they or the console disagree. */
function workersSection(run: RoutesRunView, consoleRoutes: number): Html {
  const warnings: string[] = [];
  if (run.workers.length === 0 && consoleRoutes > 0) {
    warnings.push(
      'No worker says it runs routes (none has written to Redis in the last 35 s): no route is being delivered.',
    );
  }
  if (run.workersDisagree) {
    warnings.push(
      `The workers read different routes files (${String(run.hashes.length)} versions): restart them with the same file.`,
    );
  } else if (run.consoleDiffers) {
    warnings.push(
      "The console read another version of the routes file at its start: the routes below are the workers'; restart the console to read their settings.",
    );
  }
  return html`<section aria-labelledby="h-workers">
    <h2 id="h-workers">Workers running routes</h2>
    ${warnings.map((text) => html`<p class="notice failed" role="alert">${text}</p>`)}
    ${
      run.workers.length === 0
        ? ''
        : columnsTable(
            ['Worker', 'Routes', 'Routes file (sha256)', 'Read at'],
            run.workers.map(
              (worker) =>
                html`<tr>
                  <td>${worker.workerId}</td>
                  <td>${worker.routes.join(', ')}</td>
                  <td><code>${worker.hash.slice(0, 12)}</code> ${worker.file}</td>
                  <td>${worker.readAt}</td>
                </tr>`,
            ),
          )
    }
  </section>`;
}

/** A route the workers run that the console's routes file did not have at its start. */
function unknownRouteSection(route: { name: string; workers: readonly string[] }): Html {
  return html`<section id="route-${route.name}" aria-labelledby="h-${route.name}">
    <h2 id="h-${route.name}">
      ${route.name}
      <small class="state-failing">(new: run by workers, not in the console's file)</small>
    </h2>
    <p>
      Run by ${route.workers.join(', ')}. The console read its routes file before this route was
      added: restart the console to see its settings and figures (the CLI's
      <code>routes</code> command shows them now).
    </p>
    <p class="notice failed" role="status">
      This console cannot replay to ${route.name} or pause it: it knows a route's match and retries
      only from the file it read at its start. Restart the console to act on it.
    </p>
  </section>`;
}

function routeSection(ctx: PageContext, route: RouteView, runByNoWorker: boolean): Html {
  const path = `/routes/${encodeURIComponent(route.name)}`;
  return html`<section id="route-${route.name}" aria-labelledby="h-${route.name}">
    <h2 id="h-${route.name}">
      ${route.name} <small class="state-${route.state.replace(' ', '-')}">(${route.state})</small>
      ${runByNoWorker ? html`<small class="state-failing">(no worker runs it)</small>` : ''}
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
