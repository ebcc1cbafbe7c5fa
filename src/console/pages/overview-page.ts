import type { InstitutionOverview, Overview, RouteOverview } from '../data/console-views';
import { html } from './html';
import type { Html } from './html';
import { ago, columnsTable } from './layout';

export function overviewPage(overview: Overview): Html {
  return html` <h2>Health</h2>
    ${healthTable(overview.health)}
    <h2>Institutions and their event queues</h2>
    ${institutionsTable(overview.institutions)}
    <h2>Routes</h2>
    ${
      overview.routes.length === 0
        ? html`<p>No routes (ROUTES_FILE is not set).</p>`
        : routesTable(overview.routes)
    }
    <p><small>As of ${overview.at}. Reload the page to refresh.</small></p>`;
}

function healthTable(health: Overview['health']): Html {
  return html`<table>
    <tr>
      <th scope="row">Redis</th>
      <td class="${health.redis}">${health.redis}</td>
    </tr>
    <tr>
      <th scope="row">PostgreSQL (history)</th>
      <td class="${health.postgresql}">${health.postgresql}</td>
    </tr>
  </table>`;
}

function institutionsTable(institutions: readonly InstitutionOverview[]): Html {
  return columnsTable(
    [
      'Institution',
      'Last event',
      'Events / min (last hour)',
      'API calls remaining',
      'Waiting',
      'Failed',
      'Oldest waiting',
    ],
    institutions.map(
      (row) =>
        html`<tr>
          <td>${row.institution ?? '(single institution)'}<br /><small>${row.queue}</small></td>
          <td>
            ${row.lastEventAt ?? 'none yet'}<br /><small>${ago(row.lastEventAgoSeconds)}</small>
          </td>
          <td>${row.eventsPerMinuteLastHour}</td>
          <td>${row.apiCallsRemaining ?? 'not stored (worker metric svc_api_remaining)'}</td>
          <td>${row.waiting}</td>
          <td>${row.failed}</td>
          <td>${row.oldestWaitingAgeSeconds === null ? '—' : ago(row.oldestWaitingAgeSeconds)}</td>
        </tr>`,
    ),
  );
}

function routesTable(routes: readonly RouteOverview[]): Html {
  return columnsTable(
    [
      'Route',
      'State',
      'Waiting',
      'Failed',
      'Delivered (last hour)',
      'Failed (last hour)',
      'p95 delivery',
      'Last result',
    ],
    routes.map(
      (row) =>
        html`<tr>
          <td><a href="/routes#route-${row.route}">${row.route}</a></td>
          <td class="state-${row.state.replace(' ', '-')}">${row.state}</td>
          <td>${row.waiting}</td>
          <td>${row.failed}</td>
          <td>${row.deliveredLastHour}</td>
          <td>${row.failedLastHour}</td>
          <td>${row.p95DeliveryMs === null ? '—' : `${String(row.p95DeliveryMs)} ms`}</td>
          <td>${row.lastResult ?? '—'} <small>${row.lastResultAt ?? ''}</small></td>
        </tr>`,
    ),
  );
}
