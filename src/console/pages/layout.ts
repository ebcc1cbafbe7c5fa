import { html } from './html';
import type { Html, HtmlValue } from './html';
import type { Principal } from '../auth/principal';

export interface PageContext {
  readonly principal: Principal;
  /** The CSRF token every state-changing form carries (console-auth.ts). */
  readonly csrf: string;
  readonly historyOn: boolean;
  /** The outcome of the last action (after a form's redirect). */
  readonly notice?: string | undefined;
  readonly noticeFailed?: boolean | undefined;
}

const NAV = [
  ['/', 'Overview'],
  ['/events', 'Events'],
  ['/routes', 'Routes'],
  ['/rejected', 'Rejected deliveries'],
  ['/failed', 'Failed event jobs'],
  ['/recoveries', 'Recover since'],
  ['/set-aside', 'Set aside'],
  ['/audit', 'Audit'],
] as const;

/**
 * The frame of every signed-in page: one stylesheet, and no script but what `head` brings from
 * the console's own origin (the replay progress page's htmx; CSP: no inline script).
 */
export function layout(
  ctx: PageContext,
  title: string,
  current: string,
  body: Html,
  head?: Html,
): Html {
  const who = ctx.principal;
  return page(
    title,
    html`<header>
        <nav aria-label="Console">
          <ul>
            ${NAV.map(
              ([href, label]) =>
                html`<li>
                  <a href="${href}" ${current === href ? html` aria-current="page"` : ''}
                    >${label}</a
                  >
                </li>`,
            )}
          </ul>
        </nav>
        <p class="who">
          ${who.name} ·
          ${who.role}${who.institution === undefined ? '' : html` · ${who.institution} only`}
        </p>
        <form method="post" action="/sign-out" class="inline">
          <input type="hidden" name="_csrf" value="${ctx.csrf}" />
          <button type="submit">Sign out</button>
        </form>
      </header>
      ${
        ctx.historyOn
          ? ''
          : html`<p class="banner">
              History is off: live state from Redis only (queues, routes, rejected deliveries).
            </p>`
      }
      <main>
        <h1>${title}</h1>
        ${
          ctx.notice === undefined
            ? ''
            : html`<p class="${ctx.noticeFailed ? 'notice failed' : 'notice'}" role="status">
                ${ctx.notice}
              </p>`
        }
        ${body}
      </main>`,
    head,
  );
}

/** The document itself (also the sign-in page's). */
export function page(title: string, body: Html, head?: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · svcws console</title>
        <link rel="stylesheet" href="/console.css" />
        ${head ?? ''}
      </head>
      <body>
        ${body}
      </body>
    </html>`;
}

/** A table of rows (each a `<tr>`) under a header row naming its columns. */
export function columnsTable(columns: readonly HtmlValue[], rows: readonly Html[]): Html {
  return html`<table>
    <thead>
      <tr>
        ${columns.map((column) => html`<th scope="col">${column}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/** A POST button with its CSRF token: shown to operators only. */
export function actionButton(ctx: PageContext, action: string, label: string, extra?: Html): Html {
  if (ctx.principal.role !== 'operator') return html``;
  return html`<form method="post" action="${action}" class="inline">
    <input type="hidden" name="_csrf" value="${ctx.csrf}" />${extra ?? ''}
    <button type="submit">${label}</button>
  </form>`;
}

export function ago(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 120) return `${String(seconds)} s ago`;
  if (seconds < 7200) return `${String(Math.round(seconds / 60))} min ago`;
  return `${String(Math.round(seconds / 3600))} h ago`;
}
