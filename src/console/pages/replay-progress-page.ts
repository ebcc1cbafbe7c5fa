import { countOf } from '../../count-of';
import type { ReplayRun } from '../../operations/background-replays';
import { html } from './html';
import type { Html } from './html';

/** Seconds between two looks at a running replay's progress. */
const POLL_SECONDS = 2;

/**
 * htmx (served from the console's own origin: the CSP allows script from 'self' only) replaces
 * the progress section every few seconds while the replay runs; its indicator styles would be an
 * inline <style> the CSP refuses, so they are off. Without JavaScript the page reads the same
 * and its Reload link refreshes it.
 */
const PROGRESS_HEAD = html`<meta
    name="htmx-config"
    content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}'
  />
  <script src="/htmx.min.js" defer></script>`;

const STATES: Record<ReplayRun['state'], string> = {
  running: 'running',
  done: 'done',
  failed: 'failed',
  stopped: 'stopped (the console stopped before the end)',
};

/**
 * A replay's progress as one section: the page shows it, and while the replay runs the section
 * asks for itself again (`/replays/{id}/progress`) and replaces itself; once it ends the answer
 * no longer asks, and the polling stops.
 */
export function replayProgressSection(run: ReplayRun): Html {
  const running = run.state === 'running';
  const poll = running
    ? html`hx-get="/replays/${run.replayId}/progress" hx-trigger="every ${POLL_SECONDS}s"
      hx-swap="outerHTML"`
    : html``;
  const handled = run.queued + run.skipped + run.leftOut;
  const [name, page] = run.kind === 'recover' ? ['Recovery', 'recoveries'] : ['Replay', 'replays'];
  return html`<section id="replay-progress" aria-live="polite" ${poll}>
    <p class="${run.state === 'failed' ? 'notice failed' : 'notice'}">
      ${name} ${run.replayId}: ${STATES[run.state]} — ${countOf(run.queued, 'event')} queued on
      route ${run.route}, ${run.leftOut} the route does not take left out, ${run.skipped} without a
      stored body skipped.
    </p>
    ${
      run.ignoreRouteMatch
        ? html`<p class="notice failed">
            Sent with the route's match ignored: events the route does not take were sent too.
          </p>`
        : ''
    }
    ${
      run.more ? html`<p>More than ${run.matched ?? 0} events match: this run stops there.</p>` : ''
    }
    ${
      run.matched === null
        ? html`<p>Counting the matching events…</p>`
        : html`<p>
            <label for="replay-bar">${handled} of ${run.matched} matching events handled</label>
            <progress id="replay-bar" max="${Math.max(run.matched, 1)}" value="${handled}">
              ${handled} of ${run.matched}
            </progress>
          </p>`
    }
    <dl>
      <dt>Route</dt>
      <dd>${run.route}</dd>
      <dt>Filters</dt>
      <dd>
        ${
          Object.entries(run.filters)
            .map(([name, value]) => `${name}=${value}`)
            .join(', ') || 'none'
        }
      </dd>
      <dt>Started</dt>
      <dd>${run.startedAt} by ${run.actor}</dd>
      <dt>Ended</dt>
      <dd>${run.endedAt ?? '—'}</dd>
      ${
        run.errors.length === 0
          ? ''
          : html`<dt>Errors</dt>
              <dd>${run.errors.join('; ')}</dd>`
      }
    </dl>
    ${running ? html`<p><a href="/${page}/${run.replayId}">Reload</a></p>` : ''}
  </section>`;
}

/** A run's own page: its progress, polling while it runs. */
export function progressPage(run: ReplayRun): { title: string; body: Html; head?: Html } {
  return {
    title: `${run.kind === 'recover' ? 'Recovery' : 'Replay'} ${run.replayId}`,
    body: replayProgressSection(run),
    ...(run.state === 'running' ? { head: PROGRESS_HEAD } : {}),
  };
}
