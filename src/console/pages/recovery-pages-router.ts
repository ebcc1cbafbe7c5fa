import type { Request, Response } from 'express';
import { consoleError } from '../data/console-error';
import type { ConsoleHistory } from '../data/console-history';
import { formPrincipal } from './form-principal';
import { formValues, keepingRefusal, scopeOf } from './history-pages-router';
import type { HistoryPagesDeps, PageRoute } from './history-pages-router';
import type { PageContext } from './layout';
import { historyOffPage } from './queue-pages';
import { progressPage } from './replay-progress-page';
import { RECOVERY_FIELDS, recoveryPage, setAsidePage } from './recovery-pages';

/** The recovery form's values (route and window), empty ones left out. */
const recoveryValues = (source: unknown): Record<string, string> =>
  formValues(source, ['route', ...RECOVERY_FIELDS.map(([name]) => name)]);

/**
 * "Recover since" (its form, dry run and progress) and the records set aside, over
 * ConsoleHistory as the API calls them; without history each says it is off.
 */
export function addRecoveryPages(deps: HistoryPagesDeps): void {
  const { history } = deps;
  if (history === undefined) {
    for (const [path, what] of [
      ['/recoveries', 'recovering what failed on a route'],
      ['/set-aside', 'listing the records set aside'],
    ] as const) {
      deps.addPage({
        path,
        current: path,
        view: () => Promise.resolve({ title: 'History is off', body: historyOffPage(what) }),
      });
    }
    return;
  }
  for (const one of recoveryPages(deps, history)) deps.addPage(one);
  deps.router.post('/recoveries', async (req: Request, res: Response) => {
    const principal = formPrincipal(deps.auth, req);
    const asked = { ...recoveryValues(req.body), dryRun: false };
    // No dry run asked: the answer is the recovery it started.
    const run = await keepingRefusal(deps, 'recover', principal, req.body, () =>
      history.recover(asked, scopeOf(principal)),
    );
    res.redirect(303, `/recoveries/${run.dryRun ? '' : run.replayId}`);
  });
}

function recoveryPages(deps: HistoryPagesDeps, history: ConsoleHistory): PageRoute[] {
  return [
    {
      path: '/recoveries',
      current: '/recoveries',
      view: (ctx, req) => recoveryView(deps, history, ctx, req),
    },
    {
      path: '/recoveries/:id',
      current: '/recoveries',
      view: async (ctx, req) => {
        const id = String(req.params.id);
        const run = await history.recoveryProgress(id, scopeOf(ctx.principal));
        if (run === undefined) throw consoleError.notFound(`recovery ${id}`);
        return progressPage(run);
      },
    },
    {
      path: '/set-aside',
      current: '/set-aside',
      view: async (ctx, req) => {
        const before = typeof req.query.before === 'string' ? { before: req.query.before } : {};
        const found = await history.listSetAside(before, scopeOf(ctx.principal));
        return { title: 'Records set aside', body: setAsidePage(ctx, found) };
      },
    },
  ];
}

/** The form, with the dry run once a route and a time are given. */
async function recoveryView(
  deps: HistoryPagesDeps,
  history: ConsoleHistory,
  ctx: PageContext,
  req: Request,
) {
  const values = recoveryValues(req.query);
  const routes = await deps.routeNames(ctx.principal);
  const answer =
    values.route === undefined || values.since === undefined
      ? undefined
      : await history.recover({ ...values, dryRun: true }, scopeOf(ctx.principal));
  const preview = answer?.dryRun === true ? answer : undefined;
  return { title: 'Recover since', body: recoveryPage(ctx, values, routes, preview) };
}
