import type { Overview } from '../data/console-views';
import { html } from './html';
import type { Html } from './html';
import { ago, columnsTable } from './layout';

export function overviewPage(overview: Overview): Html {
  return html` <h2>Health</h2>
    <table>
      <tr>
        <th scope="row">Redis</th>
        <td class="${overview.health.redis}">${overview.health.redis}</td>
      </tr>
      <tr>
        <th scope="row">PostgreSQL (history)</th>
        <td class="${overview.health.postgresql}">${overview.health.postgresql}</td>
      </tr>
    </table>
    <h2>Institutions and their event queues</h2>
    ${columnsTable(
      [
        'Institution',
        'Last event',
        'Events / min (last hour)',
        'API calls remaining',
        'Waiting',
        'Failed',
        'Oldest waiting',
      ],
      overview.institutions.map(
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
            <td>
              ${row.oldestWaitingAgeSeconds === null ? '—' : ago(row.oldestWaitingAgeSeconds)}
            </td>
          </tr>`,
      ),
    )}
    <h2>Routes</h2>
    ${
      overview.routes.length === 0
        ? html`<p>No routes (ROUTES_FILE is not set).</p>`
        : columnsTable(
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
            overview.routes.map(
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
          )
    }
    <p><small>As of ${overview.at}. Reload the page to refresh.</small></p>`;
}
