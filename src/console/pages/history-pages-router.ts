import type { Request, Response, Router } from 'express';
import type { HistoryPage } from '../../history/search-history';
import type { AuditPage } from '../../history/list-audit';
import type { ConsoleAuth } from '../auth/console-auth';
import { consoleError } from '../data/console-error';
import type { ConsoleHistory, HistoryScope } from '../data/console-history';
import type { Html } from './html';
import type { PageContext } from './layout';
import {
  EVENT_FILTERS,
  auditPage,
  eventPage,
  eventsPage,
  forgetPage,
  replayPage,
} from './history-pages';
import type { EventDetail } from './history-pages';
import { historyOffPage } from './queue-pages';
import { PROGRESS_HEAD, replayProgressSection } from './replay-progress-page';
import type { ReplayRun } from '../data/background-replays';
import type { Principal } from '../auth/principal';

/** A page: its title, body and what its head adds (the pages router puts it in the layout). */
export type View = (
  ctx: PageContext,
  req: Request,
) => Promise<{ title: string; body: Html; head?: Html }>;

export interface HistoryPagesDeps {
  readonly router: Router;
  /** The pages router's GET helper (sign-in, layout). */
  readonly get: (path: string, current: string, view: View) => unknown;
  readonly auth: ConsoleAuth;
  readonly history?: ConsoleHistory | undefined;
  /** The route names this principal may replay to. */
  readonly routeNames: (principal: Principal) => Promise<string[]>;
}

const scopeOf = (principal: Principal): HistoryScope => ({
  role: principal.role,
  institution: principal.institution,
  actor: principal.name,
});

/** The filters of a query or form: the CLI's names only, empty ones left out. */
function filtersOf(source: unknown, extra: readonly string[] = []): Record<string, string> {
  const values = (source ?? {}) as Record<string, unknown>;
  const names = [...EVENT_FILTERS.map(([name]) => name), ...extra];
  return Object.fromEntries(
    names.flatMap((name) => {
      const value = values[name];
      return typeof value === 'string' && value.trim() !== '' ? [[name, value.trim()]] : [];
    }),
  );
}

/**
 * Events, an event's journey, replay by query, forget and the audit: server-rendered over
 * ConsoleHistory (scope applied there). Without history each says it is off.
 */
export function addHistoryPages(deps: HistoryPagesDeps): void {
  const { get, router } = deps;
  const off =
    (title: string, what: string): View =>
    () =>
      Promise.resolve({ title, body: historyOffPage(what) });
  const history = deps.history;
  if (history === undefined) {
    get('/events', '/events', off('Events', 'searching events and their journeys'));
    get('/audit', '/audit', off('Audit', 'the audit trail (actions are in the log meanwhile)'));
    return;
  }
  get('/events', '/events', async (ctx, req) => {
    const values = filtersOf(req.query, ['after']);
    const found = (await history.search(values, scopeOf(ctx.principal))) as HistoryPage;
    const { after: _after, ...kept } = values;
    return { title: 'Events', body: eventsPage(kept, found) };
  });
  get('/events/:institution/:id', '/events', async (ctx, req) => {
    const id = String(req.params.id);
    const found = await history.journey(String(req.params.institution), id, scopeOf(ctx.principal));
    if (found === undefined) throw consoleError.notFound(`event ${id}`);
    const routes = await deps.routeNames(ctx.principal);
    return { title: `Event ${id}`, body: eventPage(ctx, found as EventDetail, routes) };
  });
  get('/replays', '/events', async (ctx, req) => {
    const values = filtersOf(req.query, ['route']);
    const routes = await deps.routeNames(ctx.principal);
    const { route, ...filters } = values;
    const dry =
      route === undefined
        ? undefined
        : ((await history.replayByQuery(
            { route, filters, dryRun: true },
            scopeOf(ctx.principal),
          )) as { count: number; more: boolean; sample: HistoryPage['items'] });
    return { title: 'Replay by query', body: replayPage(ctx, values, routes, dry) };
  });
  const progressOf = async (scope: HistoryScope, id: string): Promise<ReplayRun> => {
    const run = (await history.replayProgress(id, scope)) as ReplayRun | undefined;
    if (run === undefined) throw consoleError.notFound(`replay ${id}`);
    return run;
  };
  get('/replays/:id', '/events', async (ctx, req) => {
    const run = await progressOf(scopeOf(ctx.principal), String(req.params.id));
    return {
      title: `Replay ${run.replayId}`,
      body: replayProgressSection(run),
      ...(run.state === 'running' ? { head: PROGRESS_HEAD } : {}),
    };
  });
  // The progress section alone, for the page's partial update while the replay runs.
  router.get('/replays/:id/progress', async (req: Request, res: Response) => {
    const principal = deps.auth.principalOf(req);
    if (principal === undefined) throw consoleError.unsigned();
    const run = await progressOf(scopeOf(principal), String(req.params.id));
    res.type('html').send(replayProgressSection(run).value);
  });
  get('/forget', '/events', (ctx) =>
    Promise.resolve({ title: 'Forget a patron', body: forgetPage(ctx) }),
  );
  get('/audit', '/audit', async (ctx, req) => {
    const before = typeof req.query.before === 'string' ? { before: req.query.before } : {};
    const found = (await history.listAudit(before, scopeOf(ctx.principal))) as AuditPage;
    return { title: 'Audit', body: auditPage(found) };
  });

  // A form acts, then goes back to its page with the outcome (as the pages router's forms do),
  // or to the page of what it started.
  const form = (path: string, run: (scope: HistoryScope, req: Request) => Promise<string>) =>
    router.post(path, async (req: Request, res: Response) => {
      const principal = deps.auth.principalOf(req);
      if (principal === undefined) throw consoleError.unsigned();
      const body = req.body as Record<string, unknown> | undefined;
      if (!deps.auth.csrfHolds(req, body?._csrf)) throw consoleError.csrf();
      const outcome = await run(scopeOf(principal), req);
      if (outcome.startsWith('/')) {
        res.redirect(303, outcome);
        return;
      }
      const back = req.path.endsWith('/replay') ? req.path.slice(0, -'/replay'.length) : req.path;
      res.redirect(303, `${back}?notice=${encodeURIComponent(outcome)}`);
    });
  const started = (answer: unknown) => `/replays/${(answer as ReplayRun).replayId}`;
  form('/replays', async (scope, req) => {
    const { route = '', ...filters } = filtersOf(req.body, ['route']);
    return started(await history.replayByQuery({ route, filters, dryRun: false }, scope));
  });
  form('/events/:institution/:id/replay', async (scope, req) => {
    const { route = '' } = filtersOf(req.body, ['route']);
    const filters = { id: String(req.params.id), institution: String(req.params.institution) };
    return started(await history.replayByQuery({ route, filters, dryRun: false }, scope));
  });
  form('/forget', async (scope, req) => {
    const { user = '' } = filtersOf(req.body, ['user']);
    const report = (await history.forget({ user }, scope)) as { historyEvents: number };
    return `Forgotten: ${String(report.historyEvents)} events removed from the history.`;
  });
}
