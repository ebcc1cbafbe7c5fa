import express from 'express';
import type { NextFunction, Request, Response, Router } from 'express';
import type { Logger } from '../../logger';
import type { ActionResult } from '../data/console-views';
import type { ConsoleActions } from '../data/console-actions';
import type { ConsoleAuth } from '../auth/console-auth';
import type { ConsoleHistory } from '../data/console-history';
import { consoleError } from '../data/console-error';
import { addHistoryPages } from './history-pages-router';
import type { View } from './history-pages-router';
import { html } from './html';
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

export interface PagesDeps {
  readonly auth: ConsoleAuth;
  readonly actions: ConsoleActions;
  readonly overview: OverviewSources;
  readonly history?: ConsoleHistory | undefined;
  readonly logger: Logger;
}

type Act = (principal: Principal, req: Request) => Promise<ActionResult>;

/** The HTML pages: GET renders, a form POST acts then redirects back with its outcome. */
export function pagesRouter(deps: PagesDeps): Router {
  const router = express.Router();
  const { actions } = deps;
  const param = (req: Request, key: string) => String(req.params[key] ?? '');
  const institution = (req: Request) =>
    typeof req.query.institution === 'string' ? req.query.institution : undefined;
  const get = (path: string, current: string, view: View) =>
    router.get(path, async (req, res) => {
      const principal = deps.auth.principalOf(req);
      if (principal === undefined) {
        res.redirect(303, '/sign-in');
        return;
      }
      const ctx = contextOf(deps, req, principal);
      const { title, body, head } = await view(ctx, req);
      res.type('html').send(layout(ctx, title, current, body, head).value);
    });
  const post = (
    path: string,
    action: string,
    target: (req: Request) => string,
    back: (req: Request) => string,
    run: Act,
  ) =>
    router.post(path, async (req, res) => {
      const principal = deps.auth.principalOf(req);
      if (principal === undefined) throw consoleError.unsigned();
      const body = req.body as Record<string, unknown> | undefined;
      if (!deps.auth.csrfHolds(req, body?._csrf)) throw consoleError.csrf();
      const result = await recordAction(deps, principal, action, target(req), () =>
        run(principal, req),
      );
      const query = new URLSearchParams({
        notice: result.message,
        ...(result.done ? {} : { failed: '1' }),
      });
      res.redirect(303, `${back(req)}?${query.toString()}`);
    });

  router.use(express.urlencoded({ extended: false, limit: '16kb' }));
  get('/', '/', async (ctx) => ({
    title: 'Overview',
    body: overviewPage(await readOverview(deps.overview, ctx.principal)),
  }));
  get('/routes', '/routes', async (ctx) => ({
    title: 'Routes',
    body: routesPage(ctx, await actions.listRoutes(ctx.principal)),
  }));
  get('/rejected', '/rejected', async (ctx) => ({
    title: 'Rejected deliveries',
    body: rejectedListPage(await actions.listRejected(ctx.principal)),
  }));
  get('/rejected/:ref', '/rejected', async (ctx, req) => ({
    title: `Rejected delivery ${param(req, 'ref')}`,
    body: rejectedPage(ctx, await actions.showRejected(ctx.principal, param(req, 'ref'))),
  }));
  get('/failed', '/failed', async (ctx) => ({
    title: 'Failed event jobs',
    body: failedListPage(ctx, await actions.listFailed(ctx.principal)),
  }));
  get('/failed/:jobId', '/failed', async (ctx, req) => ({
    title: `Failed job ${param(req, 'jobId')}`,
    body: failedPage(
      ctx,
      await actions.showFailed(ctx.principal, param(req, 'jobId'), institution(req)),
    ),
  }));
  addHistoryPages({
    router,
    get,
    auth: deps.auth,
    history: deps.history,
    routeNames: () => Promise.resolve(actions.routeNames()),
  });

  for (const verb of ['pause', 'resume'] as const) {
    post(
      `/routes/:name/${verb}`,
      `route.${verb}`,
      (req) => param(req, 'name'),
      () => '/routes',
      (principal, req) => actions.setRoutePaused(principal, param(req, 'name'), verb === 'pause'),
    );
  }
  post(
    '/routes/:name/replay',
    'route.replay',
    (req) => param(req, 'name'),
    () => '/routes',
    (principal, req) => actions.replayRoute(principal, param(req, 'name')),
  );
  post(
    '/rejected/:ref/replay',
    'rejected.replay',
    (req) => param(req, 'ref'),
    () => '/rejected',
    (principal, req) => actions.replayRejected(principal, param(req, 'ref')),
  );
  post(
    '/rejected/:ref/remove',
    'rejected.remove',
    (req) => param(req, 'ref'),
    () => '/rejected',
    (principal, req) => actions.removeRejected(principal, param(req, 'ref')),
  );
  post(
    '/failed/:jobId/replay',
    'failed.replay',
    (req) => param(req, 'jobId'),
    () => '/failed',
    (principal, req) => actions.replayFailed(principal, param(req, 'jobId'), institution(req)),
  );

  router.use(pageErrorHandler(deps.logger));
  return router;
}

/** Errors of pages and forms as a page (the API answers JSON instead: api-router.ts). */
export function pageErrorHandler(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const known = toHttpError(error);
    if (known.code === 'internal') logger.error({ err: error }, 'console page failed');
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
