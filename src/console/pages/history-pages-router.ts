import type { Request, Response, Router } from 'express';
import type { ConsoleAuth } from '../auth/console-auth';
import { consoleError, toHttpError } from '../data/console-error';
import { keepRefusal } from '../data/record-action';
import type { Logger } from '../../logger';
import { formPrincipal } from './form-principal';
import type { ConsoleHistory, HistoryScope, ReplayAnswer } from '../data/console-history';
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
import { historyOffPage } from './queue-pages';
import { progressPage, replayProgressSection } from './replay-progress-page';
import type { ReplayRun } from '../../operations/background-replays';
import type { Principal } from '../auth/principal';

/** A page: its title, body and what its head adds (the pages router puts it in the layout). */
export type View = (
  ctx: PageContext,
  req: Request,
) => Promise<{ title: string; body: Html; head?: Html }>;

/** A page's path, the nav entry it lights, and its view. */
export interface PageRoute {
  readonly path: string;
  readonly current: string;
  readonly view: View;
}

export interface HistoryPagesDeps {
  readonly router: Router;
  /** The pages router's GET (sign-in, layout). */
  readonly addPage: (page: PageRoute) => void;
  readonly auth: ConsoleAuth;
  readonly history?: ConsoleHistory | undefined;
  /** For the `console action` line of a refused form (as the JSON API writes it). */
  readonly logger: Logger;
  /** The route names this principal may replay to. */
  readonly routeNames: (principal: Principal) => Promise<string[]>;
}

export const scopeOf = (principal: Principal): HistoryScope => ({
  role: principal.role,
  institution: principal.institution,
  actor: principal.name,
});

/** The filters of a query or form: the CLI's names only, empty ones left out. */
function filtersOf(source: unknown, extra: readonly string[] = []): Record<string, string> {
  return formValues(source, [...EVENT_FILTERS.map(([name]) => name), ...extra]);
}

/** The named fields of a query or form, trimmed, empty ones left out. */
export function formValues(source: unknown, names: readonly string[]): Record<string, string> {
  const values = (source ?? {}) as Record<string, unknown>;
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
  const { history } = deps;
  if (history === undefined) {
    for (const one of historyOffPages()) deps.addPage(one);
    return;
  }
  for (const one of historyPages(deps, history)) deps.addPage(one);
  // The progress section alone, for the page's partial update while the replay runs.
  deps.router.get('/replays/:id/progress', async (req: Request, res: Response) => {
    const principal = deps.auth.principalOf(req);
    if (principal === undefined) throw consoleError.unsigned();
    const run = await progressOf(history, scopeOf(principal), String(req.params.id));
    res.type('html').send(replayProgressSection(run).value);
  });
  for (const one of historyForms(history)) deps.router.post(one.path, formHandler(deps, one));
}

function historyOffPages(): PageRoute[] {
  const off =
    (title: string, what: string): View =>
    () =>
      Promise.resolve({ title, body: historyOffPage(what) });
  return [
    {
      path: '/events',
      current: '/events',
      view: off('Events', 'searching events and their journeys'),
    },
    {
      path: '/audit',
      current: '/audit',
      view: off('Audit', 'the audit trail (actions are in the log meanwhile)'),
    },
  ];
}

function historyPages(deps: HistoryPagesDeps, history: ConsoleHistory): PageRoute[] {
  return [
    { path: '/events', current: '/events', view: (ctx, req) => eventsView(history, ctx, req) },
    {
      path: '/events/:institution/:id',
      current: '/events',
      view: async (ctx, req) => {
        const id = String(req.params.id);
        const scope = scopeOf(ctx.principal);
        const found = await history.journey(String(req.params.institution), id, scope);
        if (found === undefined) throw consoleError.notFound(`event ${id}`);
        return { title: `Event ${id}`, body: eventPage(ctx, found) };
      },
    },
    {
      path: '/replays',
      current: '/events',
      view: (ctx, req) => replayView(deps, history, ctx, req),
    },
    {
      path: '/replays/:id',
      current: '/events',
      view: async (ctx, req) => {
        const run = await progressOf(history, scopeOf(ctx.principal), String(req.params.id));
        return progressPage(run);
      },
    },
    {
      path: '/forget',
      current: '/events',
      view: (ctx) => Promise.resolve({ title: 'Forget a patron', body: forgetPage(ctx) }),
    },
    {
      path: '/audit',
      current: '/audit',
      view: async (ctx, req) => {
        const before = typeof req.query.before === 'string' ? { before: req.query.before } : {};
        const found = await history.listAudit(before, scopeOf(ctx.principal));
        return { title: 'Audit', body: auditPage(found) };
      },
    },
  ];
}

async function eventsView(history: ConsoleHistory, ctx: PageContext, req: Request) {
  const values = filtersOf(req.query, ['after']);
  const found = await history.search(values, scopeOf(ctx.principal));
  const { after: _after, ...kept } = values;
  return { title: 'Events', body: eventsPage(ctx, kept, found) };
}

/** The replay form, with the dry run's count and sample once a route is chosen. */
async function replayView(
  deps: HistoryPagesDeps,
  history: ConsoleHistory,
  ctx: PageContext,
  req: Request,
) {
  const values = filtersOf(req.query, ['route', 'ignoreRouteMatch']);
  const routes = await deps.routeNames(ctx.principal);
  const { route, ignoreRouteMatch, ...filters } = values;
  const answer =
    route === undefined
      ? undefined
      : await history.replayByQuery(
          { route, filters, dryRun: true, ignoreRouteMatch: ignoreRouteMatch === 'on' },
          scopeOf(ctx.principal),
        );
  const dry = answer?.dryRun === true ? answer : undefined;
  return { title: 'Replay by query', body: replayPage(ctx, values, routes, dry) };
}

async function progressOf(
  history: ConsoleHistory,
  scope: HistoryScope,
  id: string,
): Promise<ReplayRun> {
  const run = await history.replayProgress(id, scope);
  if (run === undefined) throw consoleError.notFound(`replay ${id}`);
  return run;
}

/** A history form: its outcome is a notice, or (starting with `/`) the page of what it started. */
interface HistoryForm {
  readonly path: string;
  /** What the form asks for, as a refusal of it is logged and audited. */
  readonly action: 'replay' | 'forget';
  readonly run: (scope: HistoryScope, req: Request) => Promise<string>;
}

function historyForms(history: ConsoleHistory): HistoryForm[] {
  // The forms ask for no dry run: the answer is the run they started.
  const started = (answer: ReplayAnswer) => `/replays/${answer.dryRun ? '' : answer.replayId}`;
  return [
    {
      path: '/replays',
      action: 'replay',
      run: async (scope, req) => {
        const asked = filtersOf(req.body, ['route', 'ignoreRouteMatch', 'confirmIgnoreRouteMatch']);
        const { route = '', ignoreRouteMatch, confirmIgnoreRouteMatch, ...filters } = asked;
        // The page asks twice before sending what the route does not take (history-pages.ts).
        if (ignoreRouteMatch === 'on' && confirmIgnoreRouteMatch !== 'on') {
          throw consoleError.badField('confirmIgnoreRouteMatch', 'confirm ignoring the match');
        }
        const request = {
          route,
          filters,
          dryRun: false,
          ignoreRouteMatch: ignoreRouteMatch === 'on',
        };
        return started(await history.replayByQuery(request, scope));
      },
    },
    {
      path: '/events/:institution/:id/replay',
      action: 'replay',
      run: async (scope, req) => {
        const { route = '' } = filtersOf(req.body, ['route']);
        const filters = { id: String(req.params.id), institution: String(req.params.institution) };
        return started(await history.replayByQuery({ route, filters, dryRun: false }, scope));
      },
    },
    {
      path: '/forget',
      action: 'forget',
      run: async (scope, req) => {
        const { user = '' } = filtersOf(req.body, ['user']);
        const report = await history.forget({ user }, scope);
        return `Forgotten: ${String(report.historyEvents)} events removed from the history.`;
      },
    },
  ];
}

// A form acts, then goes back to its page with the outcome (as the pages router's forms do),
// or to the page of what it started.
function formHandler(deps: HistoryPagesDeps, form: HistoryForm) {
  return async (req: Request, res: Response): Promise<void> => {
    const principal = formPrincipal(deps.auth, req);
    const outcome = await keepingRefusal(deps, form.action, principal, req.body, () =>
      form.run(scopeOf(principal), req),
    );
    if (outcome.startsWith('/')) {
      res.redirect(303, outcome);
      return;
    }
    const back = req.path.endsWith('/replay') ? req.path.slice(0, -'/replay'.length) : req.path;
    res.redirect(303, `${back}?notice=${encodeURIComponent(outcome)}`);
  };
}

/**
 * Runs a history form's action; a refusal of it (4xx: its input, the role, a cap, a lock) is
 * logged and audited as the JSON API's are (record-action.ts keepRefusal), then answered as
 * before.
 */
export async function keepingRefusal<T>(
  deps: Pick<HistoryPagesDeps, 'logger' | 'history'>,
  action: 'replay' | 'recover' | 'forget',
  principal: Principal,
  body: unknown,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (toHttpError(error).status < 500) await keepRefusal(deps, action)(principal, body, error);
    throw error;
  }
}
