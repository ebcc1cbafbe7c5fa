import express from 'express';
import type { NextFunction, Request, Response, Router } from 'express';
import type { Logger } from '../../logger';
import type { ActionResult } from '../data/console-views';
import type { ConsoleActions } from '../data/console-actions';
import type { ConsoleAuth } from '../auth/console-auth';
import type { ConsoleHistory } from '../data/console-history';
import { formPrincipal } from './form-principal';
import { addHistoryPages } from './history-pages-router';
import { addRecoveryPages } from './recovery-pages-router';
import type { PageRoute } from './history-pages-router';
import { html } from './html';
import type { Html } from './html';
import { layout, page } from './layout';
import type { PageContext } from './layout';
import { overviewPage } from './overview-page';
import { failedListPage, failedPage, rejectedListPage, rejectedPage } from './queue-pages';
import { routesPage } from './routes-page';
import type { Principal } from '../auth/principal';
import { readOverview } from '../data/read-overview';
import type { OverviewSources } from '../data/read-overview';
import { recordAction } from '../data/record-action';
import { toHttpError } from '../data/console-error';
import { errField, stackAtDebug } from '../../err-field';

export interface PagesDeps {
  readonly auth: ConsoleAuth;
  readonly actions: ConsoleActions;
  readonly overview: OverviewSources;
  readonly history?: ConsoleHistory | undefined;
  readonly logger: Logger;
}

type Act = (principal: Principal, req: Request) => Promise<ActionResult>;

/** A form: the action it records, on what, the page it goes back to, and what it does. */
interface FormRoute {
  readonly path: string;
  readonly action: string;
  readonly target: (req: Request) => string;
  readonly back: string;
  readonly run: Act;
}

/** The HTML pages: GET renders, a form POST acts then redirects back with its outcome. */
export function pagesRouter(deps: PagesDeps): Router {
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: '16kb' }));
  const addPage = (one: PageRoute): void => {
    router.get(one.path, pageHandler(deps, one));
  };
  for (const one of queuePages(deps)) addPage(one);
  const historyDeps = {
    router,
    addPage,
    auth: deps.auth,
    history: deps.history,
    logger: deps.logger,
    routeNames: () => Promise.resolve(deps.actions.routeNames()),
  };
  addHistoryPages(historyDeps);
  addRecoveryPages(historyDeps);
  for (const one of queueForms(deps.actions)) router.post(one.path, formHandler(deps, one));
  router.use(pageErrorHandler(deps.logger));
  return router;
}

const param = (req: Request, key: string): string => String(req.params[key] ?? '');
const institution = (req: Request): string | undefined =>
  typeof req.query.institution === 'string' ? req.query.institution : undefined;

/** The overview, routes, rejected deliveries and failed jobs: what Redis holds now. */
function queuePages({ actions, overview }: PagesDeps): PageRoute[] {
  return [
    {
      path: '/',
      current: '/',
      view: async (ctx) => ({
        title: 'Overview',
        body: overviewPage(await readOverview(overview, ctx.principal)),
      }),
    },
    {
      path: '/routes',
      current: '/routes',
      view: async (ctx) => ({
        title: 'Routes',
        body: routesPage(ctx, await actions.listRoutes(ctx.principal), await actions.routesRun()),
      }),
    },
    {
      path: '/rejected',
      current: '/rejected',
      view: async (ctx) => ({
        title: 'Rejected deliveries',
        body: rejectedListPage(await actions.listRejected(ctx.principal)),
      }),
    },
    {
      path: '/rejected/:ref',
      current: '/rejected',
      view: async (ctx, req) => ({
        title: `Rejected delivery ${param(req, 'ref')}`,
        body: rejectedPage(ctx, await actions.showRejected(ctx.principal, param(req, 'ref'))),
      }),
    },
    {
      path: '/failed',
      current: '/failed',
      view: async (ctx) => ({
        title: 'Failed event jobs',
        body: failedListPage(ctx, await actions.listFailed(ctx.principal)),
      }),
    },
    {
      path: '/failed/:jobId',
      current: '/failed',
      view: async (ctx, req) => ({
        title: `Failed job ${param(req, 'jobId')}`,
        body: failedPage(
          ctx,
          await actions.showFailed(ctx.principal, param(req, 'jobId'), institution(req)),
        ),
      }),
    },
  ];
}

/** The operator's forms on routes, rejected deliveries and failed jobs. */
function queueForms(actions: ConsoleActions): FormRoute[] {
  return [
    ...(['pause', 'resume'] as const).map((verb): FormRoute => ({
      path: `/routes/:name/${verb}`,
      action: `route.${verb}`,
      target: (req) => param(req, 'name'),
      back: '/routes',
      run: (principal, req) =>
        actions.setRoutePaused(principal, param(req, 'name'), verb === 'pause'),
    })),
    {
      path: '/routes/:name/replay',
      action: 'route.replay',
      target: (req) => param(req, 'name'),
      back: '/routes',
      run: (principal, req) => actions.replayRoute(principal, param(req, 'name')),
    },
    {
      path: '/rejected/:ref/replay',
      action: 'rejected.replay',
      target: (req) => param(req, 'ref'),
      back: '/rejected',
      run: (principal, req) => actions.replayRejected(principal, param(req, 'ref')),
    },
    {
      path: '/rejected/:ref/remove',
      action: 'rejected.remove',
      target: (req) => param(req, 'ref'),
      back: '/rejected',
      run: (principal, req) => actions.removeRejected(principal, param(req, 'ref')),
    },
    {
      path: '/failed/:jobId/replay',
      action: 'failed.replay',
      target: (req) => param(req, 'jobId'),
      back: '/failed',
      run: (principal, req) =>
        actions.replayFailed(principal, param(req, 'jobId'), institution(req)),
    },
  ];
}

/** A page for a signed-in principal (else to /sign-in), in the layout with its nav entry lit. */
function pageHandler(deps: PagesDeps, { current, view }: PageRoute) {
  return async (req: Request, res: Response): Promise<void> => {
    const principal = deps.auth.principalOf(req);
    if (principal === undefined) {
      res.redirect(303, '/sign-in');
      return;
    }
    const ctx = contextOf(deps, req, principal);
    const shown = await view(ctx, req).catch((error: unknown) => {
      const body = unreadableBody(deps, toHttpError(error).code);
      if (body === undefined) throw error;
      // The page still answers, in its frame, saying what cannot be read and why.
      return { title: NAV_TITLES[current] ?? 'Console', body, head: undefined };
    });
    res.type('html').send(layout(ctx, shown.title, current, shown.body, shown.head).value);
  };
}

const NAV_TITLES: Readonly<Record<string, string>> = {
  '/routes': 'Routes',
  '/rejected': 'Rejected deliveries',
  '/failed': 'Failed event jobs',
  '/events': 'Events',
  '/audit': 'Audit',
};

/** What a page says when its source does not answer; undefined: another error (a page of its own). */
function unreadableBody(deps: PagesDeps, code: string): Html | undefined {
  if (code === 'history_unavailable') {
    return html`<p class="down" role="alert">
        The history cannot be read now: PostgreSQL (DATABASE_URL) does not answer. Events are still
        queued and delivered; their history records wait until it answers.
      </p>
      <p><a href="/">The overview</a> shows what still answers.</p>`;
  }
  const redisAway =
    code === 'redis_down' ||
    (code === 'internal' && deps.overview.queues.connection.status !== 'ready');
  if (!redisAway) return undefined;
  return html`<p class="down" role="alert">
      This cannot be read now: Redis does not answer (the queues, routes and rejected deliveries
      live there).
    </p>
    <p><a href="/">The overview</a> shows what still answers.</p>`;
}

/** A form: signed in, its CSRF token holds, the action recorded, back with the outcome. */
function formHandler(deps: PagesDeps, form: FormRoute) {
  return async (req: Request, res: Response): Promise<void> => {
    const principal = formPrincipal(deps.auth, req);
    const result = await recordAction(deps, principal, form.action, form.target(req), () =>
      form.run(principal, req),
    );
    const query = new URLSearchParams({
      notice: result.message,
      ...(result.done ? {} : { failed: '1' }),
    });
    res.redirect(303, `${form.back}?${query.toString()}`);
  };
}

/** Errors of pages and forms as a page (the API answers JSON instead: api-router.ts). */
export function pageErrorHandler(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const known = toHttpError(error);
    if (known.code === 'internal') {
      logger.error({ err: errField(error) }, 'console page failed');
      stackAtDebug(logger, {}, error, 'console page failed');
    }
    const body = html`<main>
      <h1>${known.status === 404 ? 'Not found' : 'Refused'}</h1>
      <p role="alert">${known.message}</p>
      <p><a href="/">Back to the overview</a></p>
    </main>`;
    res
      .status(known.status)
      .type('html')
      .send(page(`Error ${String(known.status)}`, body).value);
  };
}

function contextOf(deps: PagesDeps, req: Request, principal: Principal): PageContext {
  const notice = typeof req.query.notice === 'string' ? req.query.notice.slice(0, 500) : undefined;
  return {
    principal,
    csrf: deps.auth.csrfTokenOf(req),
    historyOn: deps.history !== undefined,
    notice,
    noticeFailed: req.query.failed === '1',
  };
}
