import type { Overview } from '../api-schemas';
import { html } from '../html';
import type { Html } from '../html';
import { ago } from './layout';

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
    <table>
      <thead>
        <tr>
          <th scope="col">Institution</th>
          <th scope="col">Last event</th>
          <th scope="col">Events / min (last hour)</th>
          <th scope="col">API calls remaining</th>
          <th scope="col">Waiting</th>
          <th scope="col">Failed</th>
          <th scope="col">Oldest waiting</th>
        </tr>
      </thead>
      <tbody>
        ${overview.institutions.map(
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
        )}
      </tbody>
    </table>
    <h2>Routes</h2>
    ${
      overview.routes.length === 0
        ? html`<p>No routes (ROUTES_FILE is not set).</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">Route</th>
                <th scope="col">State</th>
                <th scope="col">Waiting</th>
                <th scope="col">Failed</th>
                <th scope="col">Delivered (last hour)</th>
                <th scope="col">Failed (last hour)</th>
                <th scope="col">p95 delivery</th>
                <th scope="col">Last result</th>
              </tr>
            </thead>
            <tbody>
              ${overview.routes.map(
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
              )}
            </tbody>
          </table>`
    }
    <p><small>As of ${overview.at}. Reload the page to refresh.</small></p>`;
}
