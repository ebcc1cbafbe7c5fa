import type { RejectedEntry } from '../../events/rejected-store';
import type { FailedJob } from '../data/console-views';
import { html } from './html';
import type { Html } from './html';
import { FAILED_LIST, REJECTED_LIST } from '../data/console-actions';
import { actionButton, columnsTable } from './layout';
import type { PageContext } from './layout';

/** A rejected delivery as the console shows it: a viewer's has no bytes, request or event id. */
type RejectedSeen = Omit<RejectedEntry, 'requestId'> & { requestId?: string; text?: string };

export function rejectedListPage(entries: readonly RejectedSeen[]): Html {
  if (entries.length === 0) return html`<p>No rejected deliveries are kept.</p>`;
  return html`<p>
      The newest ${REJECTED_LIST}; <code>npm run events -- rejected list</code> shows them all.
    </p>
    ${columnsTable(
      ['Ref', 'Received', 'Status', 'Reason', 'Institution', 'Bytes'],
      entries.map(
        (entry) =>
          html`<tr>
            <td><a href="/rejected/${entry.ref}">${entry.ref}</a></td>
            <td>${entry.receivedAt}</td>
            <td>${entry.status}</td>
            <td>${entry.reason}</td>
            <td>${entry.institution ?? '—'}</td>
            <td>${entry.bytes}</td>
          </tr>`,
      ),
    )}`;
}

export function rejectedPage(ctx: PageContext, entry: RejectedSeen): Html {
  const path = `/rejected/${encodeURIComponent(entry.ref)}`;
  return html`<table>
      <tr>
        <th scope="row">Received</th>
        <td>${entry.receivedAt}</td>
      </tr>
      <tr>
        <th scope="row">Answered</th>
        <td>${entry.status}: ${entry.reason}</td>
      </tr>
      <tr>
        <th scope="row">Content type</th>
        <td>${entry.contentType ?? '—'}</td>
      </tr>
      <tr>
        <th scope="row">Event id</th>
        <td>${entry.eventId ?? '—'}</td>
      </tr>
      <tr>
        <th scope="row">Institution</th>
        <td>${entry.institution ?? '—'}</td>
      </tr>
      <tr>
        <th scope="row">Request id</th>
        <td>${entry.requestId ?? '—'}</td>
      </tr>
    </table>
    <p>
      ${actionButton(ctx, `${path}/replay`, 'Replay')}
      ${actionButton(ctx, `${path}/remove`, 'Remove')}
    </p>
    ${
      entry.text === undefined
        ? html`<p>The body (${entry.bytes} bytes) is shown to operators only.</p>`
        : html`<h2>Body as received (${entry.bytes} bytes, as text)</h2>
            <pre>${entry.text}</pre>`
    }`;
}

function failedPath(job: FailedJob, verb = ''): string {
  const query =
    job.institution === null ? '' : `?institution=${encodeURIComponent(job.institution)}`;
  return `/failed/${encodeURIComponent(job.jobId)}${verb}${query}`;
}

export function failedListPage(ctx: PageContext, jobs: readonly FailedJob[]): Html {
  if (jobs.length === 0) return html`<p>No failed event jobs.</p>`;
  return html`<p>
      The newest ${FAILED_LIST} of each institution's queue; <code>npm run events -- failed</code>
      lists them all.
    </p>
    ${columnsTable(
      [
        'Job',
        'Institution',
        'Action',
        'Attempts',
        'Failed at',
        'Reason',
        html`<span class="visually-hidden">Actions</span>`,
      ],
      jobs.map(
        (job) =>
          html`<tr>
            <td><a href="${failedPath(job)}">${job.jobId}</a></td>
            <td>${job.eventInstitution ?? job.institution ?? '—'}</td>
            <td>${job.action}</td>
            <td>${job.attemptsMade}/${job.attempts}</td>
            <td>${job.failedAt ?? '—'}</td>
            <td>${job.reason}</td>
            <td>${actionButton(ctx, failedPath(job, '/replay'), `Replay ${job.jobId}`)}</td>
          </tr>`,
      ),
    )}`;
}

export function failedPage(
  ctx: PageContext,
  job: FailedJob & { data: unknown; stacktrace: string[] },
): Html {
  return html`<table>
      <tr>
        <th scope="row">Queue</th>
        <td>${job.queue}</td>
      </tr>
      <tr>
        <th scope="row">Action</th>
        <td>${job.action}</td>
      </tr>
      <tr>
        <th scope="row">Attempts</th>
        <td>${job.attemptsMade}/${job.attempts}</td>
      </tr>
      <tr>
        <th scope="row">Failed at</th>
        <td>${job.failedAt ?? '—'}</td>
      </tr>
      <tr>
        <th scope="row">Reason</th>
        <td>${job.reason}</td>
      </tr>
    </table>
    <p>${actionButton(ctx, failedPath(job, '/replay'), 'Replay')}</p>
    <h2>
      Event${ctx.principal.role === 'viewer' ? ' (only the fields known to be safe; the rest masked)' : ''}
    </h2>
    <pre>${JSON.stringify(job.data, null, 2)}</pre>
    <h2>Stack of the last failure</h2>
    <pre>${job.stacktrace.at(-1) ?? '—'}</pre>`;
}

/** The history pages until the history is wired (src/history/). */
export function historyOffPage(what: string): Html {
  return html`<p>
    History is off: ${what} needs the event history (PostgreSQL), which this console was not started
    with. Live state is on the other pages.
  </p>`;
}

export function signInPage(csrfless: { error?: string | undefined }): Html {
  return html`<main>
    <h1>Sign in to the svcws console</h1>
    ${csrfless.error === undefined ? '' : html`<p class="notice failed" role="alert">${csrfless.error}</p>`}
    <form method="post" action="/sign-in">
      <label for="token">Console token</label>
      <input id="token" name="token" type="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </form>
    <p>Tokens come from <code>npm run events -- console-token</code>; see docs/console.md.</p>
  </main>`;
}
