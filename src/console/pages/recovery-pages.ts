import type { SetAsidePage } from '../data/console-history';
import { RECOVERY_CAP } from '../../operations/recover-since';
import type { RecoveryDryRun } from '../../operations/recovery-dry-run';
import { html } from './html';
import type { Html } from './html';
import { routeSelect } from './history-pages';
import { columnsTable } from './layout';
import type { PageContext } from './layout';

/** The recovery form's fields, by the CLI's option names (`history recover`). */
export const RECOVERY_FIELDS = [
  ['since', 'Since (ISO time, within retention)'],
  ['until', 'Until (ISO time, default now)'],
  ['institution', 'Institution (default all)'],
] as const;

function candidatesTable(preview: RecoveryDryRun): Html {
  if (preview.sample.length === 0) return html`<p>Nothing to recover in this window.</p>`;
  return columnsTable(
    [
      'Event',
      'Institution',
      'Action',
      'Received',
      'Last failure',
      'Attempt',
      'Status',
      'Last error',
      'Route takes it',
    ],
    preview.sample.map(
      (one) =>
        html`<tr>
          <td>
            <a
              href="/events/${encodeURIComponent(one.institution)}/${encodeURIComponent(one.eventId)}"
              >${one.eventId}</a
            >
          </td>
          <td>${one.institution}</td>
          <td>${one.action}</td>
          <td>${one.receivedAt}</td>
          <td>${one.failedAt}</td>
          <td>${one.attempt}</td>
          <td>${one.status ?? '—'}</td>
          <td>${one.error ?? '—'}</td>
          <td>${one.routeTakes ? 'yes' : 'no: left out'}</td>
        </tr>`,
    ),
  );
}

/** The dry run's heading and the confirm button (operators; the fields go along hidden). */
function dryRunSection(
  ctx: PageContext,
  values: Readonly<Record<string, string>>,
  preview: RecoveryDryRun,
): Html {
  const hidden = Object.entries(values).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  const sends = preview.more ? `the first ${String(RECOVERY_CAP)}` : String(preview.sends);
  const nothing =
    preview.count === 0
      ? ''
      : html`<p>Nothing to send again: route ${values.route ?? ''} takes none of these events.</p>`;
  const confirm =
    preview.sends === 0
      ? nothing
      : html`<form method="post" action="/recoveries">
            <input type="hidden" name="_csrf" value="${ctx.csrf}" />${hidden}
            <button type="submit">Send ${sends} again to ${values.route ?? ''}</button>
          </form>
          <p>The recovery runs in the background; its page shows how far it is.</p>`;
  const count = preview.more ? `More than ${String(RECOVERY_CAP)}` : String(preview.count);
  return html`<h2>Dry run: ${count} events failed and never succeeded since</h2>
    <p id="recovery-summary">${preview.summary}.</p>
    ${preview.more ? html`<p>A run stops at ${RECOVERY_CAP}; run it again for the rest.</p>` : ''}
    ${candidatesTable(preview)} ${confirm}`;
}

/**
 * "Recover since": a route and a window, its dry run (count and the newest few with their last
 * error, masked as the history keeps it), then the confirm button.
 */
export function recoveryPage(
  ctx: PageContext,
  values: Readonly<Record<string, string>>,
  routes: readonly string[],
  preview?: RecoveryDryRun,
): Html {
  return html`<p>
      Sends again, on the route's own queue, the events whose deliveries there failed and never
      succeeded since (docs/history.md, "Recover since").
    </p>
    <form method="get" action="/recoveries" class="filters">
      ${routeSelect('rc-route', routes, values.route)}
      ${RECOVERY_FIELDS.map(
        ([name, label]) =>
          html`<p>
            <label for="rc-${name}">${label}</label>
            <input id="rc-${name}" name="${name}" value="${values[name] ?? ''}" />
          </p>`,
      )}
      <p><button type="submit">Count (dry run)</button></p>
    </form>
    ${preview === undefined ? '' : dryRunSection(ctx, values, preview)}`;
}

/** Records the history set aside: a viewer reads how many, an operator each one's facts. */
export function setAsidePage(ctx: PageContext, found: SetAsidePage): Html {
  const summary = html`<p>
    ${found.count} records set aside: PostgreSQL refused them for their data, and the rest of their
    batch was written (docs/history.md, "Records set aside").
  </p>`;
  if (ctx.principal.role !== 'operator') {
    return html`${summary}
      <p>Listing them needs the operator role.</p>`;
  }
  if (found.items.length === 0) return summary;
  return html`${summary}
  ${columnsTable(
    ['Set aside', 'Record', 'Institution', 'Event', 'SQLSTATE', 'Reason'],
    found.items.map(
      (row) =>
        html`<tr>
          <td>${row.setAsideAt}</td>
          <td>${row.recordType}${row.patron ? ' (patron)' : ''}</td>
          <td>${row.institution || '—'}</td>
          <td>${row.eventId || '—'}</td>
          <td>${row.sqlstate}</td>
          <td>${row.reason}</td>
        </tr>`,
    ),
  )}
  ${found.next === undefined ? '' : html`<p><a href="/set-aside?before=${found.next}">Older</a></p>`}`;
}
