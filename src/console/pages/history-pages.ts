import { countOf } from '../../count-of';
import { isRecord } from '../../is-record';
import type { AuditPage, HistoryEventSummary, HistoryPage, JourneyStep } from '../../history';
import { eventHeadline } from './event-headline';
import type { EventJourney, ReplayAnswer } from '../data/console-history';
import { html } from './html';
import type { Html } from './html';
import { columnsTable } from './layout';
import type { PageContext } from './layout';

/** The search form's fields, by the CLI's names (src/cli/history-filter-options.ts). */
export const EVENT_FILTERS = [
  ['id', 'Event id'],
  ['user', 'Patron id (matched by its hash)'],
  ['barcode', 'Item barcode'],
  ['mms', 'MMS id'],
  ['loan', 'Loan id'],
  ['request', 'Request id'],
  ['job-instance', 'Job instance id'],
  ['institution', 'Institution'],
  ['action', 'Action'],
  ['event', 'Event code'],
  ['since', 'Since (ISO time)'],
  ['until', 'Until (ISO time)'],
  ['route', 'Route'],
  ['outcome', 'Outcome on the route'],
] as const;

/** A replay's dry run, as createConsoleHistory answers it (replay-dry-run-text.ts). */
export type ReplayDryRunView = Extract<ReplayAnswer, { dryRun: true }>;

function filterFields(values: Readonly<Record<string, string>>, leaveOut: string[] = []): Html {
  return html`${EVENT_FILTERS.filter(([name]) => !leaveOut.includes(name)).map(
    ([name, label]) =>
      html`<p>
        <label for="f-${name}">${label}</label>
        <input id="f-${name}" name="${name}" value="${values[name] ?? ''}" />
      </p>`,
  )}`;
}

const eventPath = (item: HistoryEventSummary) =>
  `/events/${encodeURIComponent(item.institution)}/${encodeURIComponent(item.eventId)}`;

/** A job_end the reconciliation found again (the platform never delivered it). */
const recoveredBadge = (item: HistoryEventSummary): Html | string =>
  item.recovered ? html` <span class="badge">recovered</span>` : '';

function eventsTable(items: readonly HistoryEventSummary[]): Html {
  if (items.length === 0) return html`<p>No event matches.</p>`;
  return columnsTable(
    ['Event', 'Institution', 'Action', 'Code', 'Received', 'Barcodes', 'Patron'],
    items.map(
      (item) =>
        html`<tr>
          <td><a href="${eventPath(item)}">${item.eventId}</a>${recoveredBadge(item)}</td>
          <td>${item.institution}</td>
          <td>${item.action}</td>
          <td>${item.eventCode ?? '—'}</td>
          <td>${item.receivedAt}</td>
          <td>${item.barcodes.join(', ')}</td>
          <td>${item.patron ? 'yes' : 'no'}</td>
        </tr>`,
    ),
  );
}

/**
 * The search: a GET form (its filters stay in the URL) and one page of results. A viewer's form
 * has no patron id field: searching by person is the operator's (create-console-history.ts).
 */
export function eventsPage(
  ctx: PageContext,
  values: Readonly<Record<string, string>>,
  found: HistoryPage,
): Html {
  const next = new URLSearchParams({ ...values, after: found.next ?? '' });
  return html`<p><a href="/replays">Replay by query</a> · <a href="/forget">Forget a patron</a></p>
    <form method="get" action="/events" class="filters">
      ${filterFields(values, ctx.principal.role === 'operator' ? [] : ['user'])}
      <p><button type="submit">Search</button></p>
    </form>
    ${eventsTable(found.items)}
    ${found.next === undefined ? '' : html`<p><a href="/events?${next.toString()}">Next page</a></p>`}`;
}

/** The queue's and the worker's steps: queued, taken, a run given back, finished. */
type WorkerStep = Extract<JourneyStep, { kind: 'queued' | 'taken' | 'released' | 'finished' }>;

function workerStepRow(step: WorkerStep): Html {
  const job = step.jobId === null ? '' : html`<br /><small>job ${step.jobId}</small>`;
  switch (step.kind) {
    case 'queued':
      return html`<tr>
        <td>${step.at}</td>
        <td>queued by the ${step.by}${job}</td>
        <td colspan="4"></td>
      </tr>`;
    case 'taken':
      return html`<tr>
        <td>${step.at}</td>
        <td>taken by a worker, run ${step.run}${job}</td>
        <td colspan="3">
          ${step.endedAt === null ? 'no end recorded: still running, or its worker stopped' : ''}
        </td>
        <td>
          ${step.endedAt === null ? '—' : `${String(Date.parse(step.endedAt) - Date.parse(step.at))} ms`}
        </td>
      </tr>`;
    case 'released':
    case 'finished':
      return html`<tr>
        <td>${step.at}</td>
        <td>
          ${step.kind === 'finished' ? 'finished' : `run ${String(step.run)} ended: taken again later`}
        </td>
        <td>${step.outcome}</td>
        <td colspan="3"></td>
      </tr>`;
  }
}

function stepRow(step: JourneyStep, action: string): Html {
  if (step.kind === 'received') {
    return html`<tr>
      <td>${step.at}</td>
      <td>received by the listener</td>
      <td colspan="4"></td>
    </tr>`;
  }
  if (step.kind !== 'attempt' && step.kind !== 'outcome') return workerStepRow(step);
  if (step.kind === 'attempt') {
    return html`<tr>
      <td>${step.at}</td>
      <td>
        route ${step.route}, attempt ${step.attempt}<br /><small
          >${step.path === 'inline' ? 'inline (by the worker that took the event)' : `queued (job ${step.jobId ?? '—'})`}</small
        >
      </td>
      <td>${step.outcome}</td>
      <td>${step.status ?? '—'}</td>
      <td class="reason">${step.error ?? '—'}</td>
      <td>${step.durationMs} ms</td>
    </tr>`;
  }
  return html`<tr>
    <td>${step.at}</td>
    <td>${action} ${step.subjectId ?? ''}</td>
    <td>${step.outcome}</td>
    <td colspan="2" class="reason">${step.error ?? filesList(step.files)}</td>
    <td></td>
  </tr>`;
}

/** The files an outcome names (a job_end's records files, job-end-outcome-of.ts): path, bytes, records. */
function filesList(files: unknown): Html | string {
  const list = Array.isArray(files) ? (files as unknown[]).filter(isFile) : [];
  if (list.length === 0) return 'no files';
  return html`<ul class="files">
    ${list.map(
      (file) =>
        html`<li>
          <code>${file.path}</code> · ${file.bytes}
          bytes${file.records === undefined ? '' : ` · ${String(file.records)} records`}
        </li>`,
    )}
  </ul>`;
}

function isFile(value: unknown): value is { path: string; bytes: number; records?: number } {
  return isRecord(value) && typeof value.path === 'string' && typeof value.bytes === 'number';
}

/** One event: its fields, its journey and (operators) "deliver again to route X". */
const JOURNEY_COLUMNS = ['At', 'Step', 'Outcome', 'Status', 'Error or files', 'Duration'];

export function eventPage(ctx: PageContext, detail: EventJourney): Html {
  const { event } = detail;
  const routes = detail.routes ?? [];
  const again = ctx.principal.role === 'operator' ? deliverAgain(ctx, detail, routes) : '';
  return html`<p id="event-headline">${eventHeadline(event)}${recoveredBadge(event)}</p>
    ${again}
    <h2>Journey</h2>
    ${columnsTable(
      JOURNEY_COLUMNS,
      detail.steps.map((step) => stepRow(step, event.action)),
    )}
    <h2>
      Body${ctx.principal.role === 'viewer' ? ' (only the fields known to be safe; the rest masked)' : ''}
    </h2>
    <pre>
${detail.body === null ? 'not kept (HISTORY_BODIES, or forgotten)' : JSON.stringify(detail.body, null, 2)}</pre>`;
}

/**
 * "Deliver again": only the routes that take the event (as its fan-out would have sent it), none
 * chosen for the operator; an event no route takes (or whose body is not kept) says so instead.
 */
function deliverAgain(ctx: PageContext, detail: EventJourney, routes: readonly string[]): Html {
  if (detail.body === null) return html`<p>Not kept, so it cannot be delivered again.</p>`;
  if (routes.length === 0) return html`<p>No route takes this event (their match:).</p>`;
  return html`<form method="post" action="${eventPath(detail.event)}/replay">
    <input type="hidden" name="_csrf" value="${ctx.csrf}" />
    <label for="again-route">Deliver again to route (those that take this event)</label>
    <select id="again-route" name="route" required>
      <option value="" selected disabled>— choose a route —</option>
      ${routes.map((name) => html`<option>${name}</option>`)}
    </select>
    <button type="submit">Deliver again</button>
  </form>`;
}

/** A form's route chooser (`route`), the chosen one selected. */
export function routeSelect(id: string, routes: readonly string[], chosen?: string): Html {
  return html`<p>
    <label for="${id}">Route</label>
    <select id="${id}" name="route">
      ${routes.map((name) => html`<option ${chosen === name ? html`selected` : ''}>${name}</option>`)}
    </select>
  </p>`;
}

/** Replay by query: the form, then its dry run (both counts, a sample) with a confirm button. */
export function replayPage(
  ctx: PageContext,
  values: Readonly<Record<string, string>>,
  routes: readonly string[],
  dry?: ReplayDryRunView,
): Html {
  const ignoring = values.ignoreRouteMatch === 'on';
  return html`<form method="get" action="/replays" class="filters">
      ${routeSelect('r-route', routes, values.route)}
      ${filterFields(values, ['route', 'outcome', 'ignoreRouteMatch'])}
      <p class="wide check">
        <input
          type="checkbox"
          id="r-ignore"
          name="ignoreRouteMatch"
          ${ignoring ? html`checked` : ''}
        />
        <label for="r-ignore"
          >Also send the events the route does not take (ignore its match)</label
        >
      </p>
      <p><button type="submit">Count (dry run)</button></p>
    </form>
    ${dry === undefined ? '' : replayConfirm(ctx, values, dry)}`;
}

/** The dry run's counts and sample, and the button that starts the replay. */
function replayConfirm(
  ctx: PageContext,
  values: Readonly<Record<string, string>>,
  dry: ReplayDryRunView,
): Html {
  // Nothing outside the route to send: the replay keeps to the route (no confirmation asked).
  const kept = Object.entries(values).filter(
    ([name]) => name !== 'ignoreRouteMatch' || dry.outsideRoute > 0,
  );
  const hidden = kept.map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  const floor = dry.more ? 'more than ' : '';
  // Sending what the route does not take is asked for twice: the box above, then this one.
  const confirmIgnore =
    dry.ignoreRouteMatch && dry.outsideRoute > 0
      ? html`<p class="notice failed">
            ${dry.outsideRoute} of these events are not for route ${values.route ?? ''}: its
            destination was never sent them.
          </p>
          <p>
            <input type="checkbox" id="r-confirm" name="confirmIgnoreRouteMatch" required />
            <label for="r-confirm"
              >Yes, send ${dry.outsideRoute} events route ${values.route ?? ''} does not take</label
            >
          </p>`
      : '';
  const button =
    dry.sends === 0
      ? html`<p>Nothing to replay: route ${values.route ?? ''} takes none of these events.</p>`
      : html`<form method="post" action="/replays">
          <input type="hidden" name="_csrf" value="${ctx.csrf}" />${hidden} ${confirmIgnore}
          <button type="submit">
            Replay
            ${dry.more ? `all (more than ${String(dry.sends)}) events` : countOf(dry.sends, 'event')}
            to ${values.route ?? ''}
          </button>
        </form>`;
  return html`<h2>Dry run: ${floor}${dry.count} events match your filter</h2>
    <p id="replay-summary">${dry.summary}.</p>
    ${sampleTable(dry.sample)} ${button}
    <p>The replay runs in the background; its page shows how far it is.</p>`;
}

function sampleTable(items: ReplayDryRunView['sample']): Html {
  if (items.length === 0) return html`<p>No event matches.</p>`;
  return columnsTable(
    ['Event', 'Institution', 'Action', 'Received', 'Route takes it'],
    items.map(
      (item) =>
        html`<tr>
          <td><a href="${eventPath(item)}">${item.eventId}</a></td>
          <td>${item.institution}</td>
          <td>${item.action}</td>
          <td>${item.receivedAt}</td>
          <td>${item.routeTakes ? 'yes' : 'no'}</td>
        </tr>`,
    ),
  );
}

/** Forget a patron everywhere this service holds them (operators). */
export function forgetPage(ctx: PageContext): Html {
  return html`<p>
      Removes a person's events, attempts, queued jobs and rejected deliveries (docs/privacy.md).
    </p>
    <form method="post" action="/forget">
      <input type="hidden" name="_csrf" value="${ctx.csrf}" />
      <label for="forget-user">Patron id, card number or e-mail</label>
      <input id="forget-user" name="user" required />
      <button type="submit">Forget</button>
    </form>`;
}

export function auditPage(found: AuditPage): Html {
  if (found.items.length === 0) return html`<p>No action recorded.</p>`;
  return html`${columnsTable(
    ['At', 'Who', 'Action', 'Target', 'Count', 'Details'],
    found.items.map(
      (row) =>
        html`<tr>
          <td>${row.at}</td>
          <td>${row.actor}</td>
          <td>${row.action}</td>
          <td>${row.target ?? '—'}</td>
          <td>${row.count ?? '—'}</td>
          <td>${JSON.stringify(row.details)}</td>
        </tr>`,
    ),
  )}
  ${found.next === undefined ? '' : html`<p><a href="/audit?before=${found.next}">Older</a></p>`}`;
}
