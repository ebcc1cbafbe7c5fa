import { isRecord } from '../../is-record';
import type { AuditPage, HistoryEventSummary, HistoryPage, JourneyStep } from '../../history';
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

/** An event and its journey, as createConsoleHistory answers it. */
export interface EventDetail {
  readonly event: HistoryEventSummary;
  readonly body: unknown;
  readonly steps: JourneyStep[];
}

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

function stepRow(step: JourneyStep): Html {
  if (step.kind === 'received') {
    return html`<tr>
      <td>${step.at}</td>
      <td>received by the listener</td>
      <td colspan="4"></td>
    </tr>`;
  }
  if (step.kind !== 'attempt' && step.kind !== 'job_end') return workerStepRow(step);
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
    <td>job_end ${step.jobInstanceId ?? ''}</td>
    <td>${step.outcome}</td>
    <td colspan="2" class="reason">${step.error ?? filesList(step.files)}</td>
    <td></td>
  </tr>`;
}

/** The records files a job_end stored (job-end-outcome-of.ts): path, bytes, records. */
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

export function eventPage(ctx: PageContext, detail: EventDetail, routes: readonly string[]): Html {
  const { event } = detail;
  const again =
    ctx.principal.role === 'operator' && routes.length > 0
      ? html`<form method="post" action="${eventPath(event)}/replay">
          <input type="hidden" name="_csrf" value="${ctx.csrf}" />
          <label for="again-route">Deliver again to route</label>
          <select id="again-route" name="route">
            ${routes.map((name) => html`<option>${name}</option>`)}
          </select>
          <button type="submit">Deliver again</button>
        </form>`
      : '';
  return html`<p>
      ${event.institution} · ${event.action} · ${event.eventCode ?? '—'} · received
      ${event.receivedAt}${recoveredBadge(event)}
    </p>
    ${again}
    <h2>Journey</h2>
    ${columnsTable(JOURNEY_COLUMNS, detail.steps.map(stepRow))}
    <h2>
      Body${ctx.principal.role === 'viewer' ? ' (only the fields known to be safe; the rest masked)' : ''}
    </h2>
    <pre>
${detail.body === null ? 'not kept (HISTORY_BODIES, or forgotten)' : JSON.stringify(detail.body, null, 2)}</pre>`;
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

/** Replay by query: the form, then its dry run (count and sample) with a confirm button. */
export function replayPage(
  ctx: PageContext,
  values: Readonly<Record<string, string>>,
  routes: readonly string[],
  dry?: { count: number; more: boolean; sample: HistoryEventSummary[] },
): Html {
  const hidden = Object.entries(values).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  const confirm =
    dry === undefined
      ? ''
      : html`<h2>Dry run: ${dry.more ? 'more than ' : ''}${dry.count} events match</h2>
          ${eventsTable(dry.sample)}
          <form method="post" action="/replays">
            <input type="hidden" name="_csrf" value="${ctx.csrf}" />${hidden}
            <button type="submit">
              Replay ${dry.more ? 'all (more than ' : ''}${dry.count}${dry.more ? ')' : ''} events
              to ${values.route ?? ''}
            </button>
          </form>
          <p>The replay runs in the background; its page shows how far it is.</p>`;
  return html`<form method="get" action="/replays" class="filters">
      ${routeSelect('r-route', routes, values.route)} ${filterFields(values, ['route', 'outcome'])}
      <p><button type="submit">Count (dry run)</button></p>
    </form>
    ${confirm}`;
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
