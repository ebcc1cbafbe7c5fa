import type {
  ExpectedEventView,
  InstitutionOverview,
  Overview,
  RedisNodeView,
  RouteOverview,
} from '../data/console-views';
import { html } from './html';
import type { Html } from './html';
import { ago, columnsTable } from './layout';
import { routeStateText } from './route-state-text';

export function overviewPage(overview: Overview): Html {
  return html` <h2>Health</h2>
    ${healthTable(overview.health)}
    <h2>Institutions and their event queues</h2>
    ${
      overview.unreadable.includes('institutions')
        ? unreadable('The event queues')
        : institutionsTable(overview.institutions)
    }
    <h2>Routes</h2>
    ${routesSection(overview)}
    <h2>Expected events</h2>
    ${expectedSection(overview)}
    <p><small>As of ${overview.at}. Reload the page to refresh.</small></p>`;
}

function unreadable(what: string): Html {
  return html`<p class="down" role="alert">${what} cannot be read now: Redis does not answer.</p>`;
}

const MEANING = {
  redis: {
    up: 'answers',
    down: 'does not answer: the listener cannot queue events (it answers 503 or spools them), workers wait, and the queues, routes and rejected deliveries cannot be read',
  },
  postgresql: {
    up: 'answers',
    down: 'does not answer: the history pages cannot be read; events are still queued and delivered, their history records wait',
    'not configured': 'DATABASE_URL is not set: no history',
  },
} as const;

/** A cluster node's state, styled as the health rows are (up, down). */
const NODE_STATE_CLASS = { ok: 'up', unreachable: 'down', failed: 'down' } as const;

function nodeMeaning(one: RedisNodeView): string {
  if (one.role === 'replica') {
    return one.state === 'ok'
      ? 'replica'
      : 'replica, not answering: its primary has one copy fewer (REDIS_ACK_REPLICAS may not be met)';
  }
  const role = `primary, ${String(one.slots)} of 16384 slots`;
  if (one.state === 'ok') return role;
  const seen = one.state === 'failed' ? 'the cluster has failed it' : 'some nodes cannot reach it';
  return `${role}: ${seen}; its replica takes its slots over`;
}

function healthTable(health: Overview['health']): Html {
  return html`<table>
    <tr>
      <th scope="row">Redis</th>
      <td class="${health.redis}">${health.redis}</td>
      <td>${MEANING.redis[health.redis]}</td>
    </tr>
    ${(health.redisNodes ?? []).map(
      (one) =>
        html`<tr>
          <th scope="row">Redis node ${one.node}</th>
          <td class="${NODE_STATE_CLASS[one.state]}">${one.state}</td>
          <td>${nodeMeaning(one)}</td>
        </tr>`,
    )}
    <tr>
      <th scope="row">PostgreSQL (history)</th>
      <td class="${health.postgresql.replace(' ', '-')}">${health.postgresql}</td>
      <td>${MEANING.postgresql[health.postgresql]}</td>
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
      'Waiting (delayed for a retry)',
      'Failed',
      'Oldest waiting',
    ],
    institutions.map(
      (row) =>
        html`<tr>
          <td>
            ${row.institution ?? row.eventInstitution ?? '(single institution, no event yet)'}<br /><small
              >${row.queue}</small
            >
          </td>
          <td>
            ${row.lastEventAt ?? 'none yet'}<br /><small>${ago(row.lastEventAgoSeconds)}</small>
          </td>
          <td>${row.eventsPerMinuteLastHour}</td>
          <td>
            ${row.apiCallsRemaining ?? 'not known yet (no API answer since the worker started)'}
          </td>
          <td>${waitingText(row)}</td>
          <td>${row.failed}</td>
          <td>${row.oldestWaitingAgeSeconds === null ? '—' : ago(row.oldestWaitingAgeSeconds)}</td>
        </tr>`,
    ),
  );
}

/** Waiting, with the delayed beside it: a queue of retries is not an empty one. */
function waitingText(row: { waiting: number; delayed: number }): string {
  return row.delayed === 0
    ? String(row.waiting)
    : `${String(row.waiting)} (+${String(row.delayed)} delayed)`;
}

function routesSection(overview: Overview): Html {
  if (overview.unreadable.includes('routes')) return unreadable('The routes');
  if (overview.routes.length === 0) return html`<p>No routes (ROUTES_FILE is not set).</p>`;
  return columnsTable(
    [
      'Route',
      'State',
      'Waiting (delayed for a retry)',
      'Failed (queue)',
      'Last hour: delivered · retrying · failed',
      'p95 delivery',
      'Last result',
    ],
    overview.routes.map(routeRow),
  );
}

function routeRow(row: RouteOverview): Html {
  return html`<tr>
    <td><a href="/routes#route-${row.route}">${row.route}</a></td>
    <td class="wide">${routeStateText(row)}</td>
    <td>${waitingText(row)}</td>
    <td>${row.failed}</td>
    <td>${row.deliveredLastHour} · ${row.retryingLastHour} · ${row.failedLastHour}</td>
    <td>${row.p95DeliveryMs === null ? '—' : `${String(row.p95DeliveryMs)} ms`}</td>
    <td class="wide">
      ${row.lastResult ?? '—'} <small>${row.lastResultAt ?? ''}</small>
      ${row.lastError === null ? '' : html`<br /><span class="reason">${row.lastError}</span>`}
    </td>
  </tr>`;
}

function expectedSection(overview: Overview): Html {
  if (overview.unreadable.includes('expected events')) return unreadable('The expected events');
  if (overview.expected.length === 0) {
    return html`<p>No rules (EXPECTED_EVENTS_FILE is not set or names none).</p>`;
  }
  return columnsTable(
    ['Institution', 'Rule', 'At least every', 'Last seen', 'Age', 'Late'],
    overview.expected.map(
      (row: ExpectedEventView) =>
        html`<tr>
          <td>${row.institution === '' ? '(single institution)' : row.institution}</td>
          <td>${row.rule}</td>
          <td>${row.everyHours} h</td>
          <td>${row.lastSeenAt ?? 'none since watched'}</td>
          <td>${ago(row.ageSeconds)}</td>
          <td class="${row.late ? 'down' : ''}">${row.late ? 'late' : 'no'}</td>
        </tr>`,
    ),
  );
}
