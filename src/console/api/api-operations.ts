import { z } from 'zod';
import type { Logger } from '../../logger';
import { HttpError } from '../../http/http-error';
import {
  FailedDetail,
  FailedList,
  InstitutionQuery,
  RejectedDetail,
  RejectedList,
  RouteList,
  RoutesRun,
  AuditList,
  AuditQuery,
  EventDetail,
  EventsPage,
  EventsQuery,
  ForgetAnswer,
  ForgetBody,
  ReplayAnswer,
  ReplayBody,
  ReplayRun,
  RecoveryAnswer,
  RecoveryBody,
  SetAsideList,
  SetAsideQuery,
} from './api-schemas';
import { ActionResult, Overview } from '../data/console-views';
import type { ConsoleActions } from '../data/console-actions';
import type { ConsoleHistory, HistoryScope } from '../data/console-history';
import type { Principal } from '../auth/principal';
import { readOverview } from '../data/read-overview';
import type { OverviewSources } from '../data/read-overview';
import { keepRefusal, recordAction } from '../data/record-action';

export interface OperationInput {
  readonly principal: Principal;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** One call of /api/v1: the router and the OpenAPI document are both made from this table. */
export interface Operation {
  readonly method: 'get' | 'post';
  /** OpenAPI form, under /api/v1: `/routes/{name}/pause`. */
  readonly path: string;
  readonly summary: string;
  readonly response: z.ZodType;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /** Answers 503 `history_off` while the console runs without history. */
  readonly needsHistory?: boolean;
  /** When the answer is 202 Accepted (work goes on after it): the Location of its progress. */
  readonly accepted?: (result: unknown) => string | undefined;
  handle(input: OperationInput): Promise<unknown>;
  /**
   * A history action (replay, recovery, forget) refused for any reason the caller can fix or must
   * accept (4xx: its input, its role, a cap, a lock): kept in the log and the audit as refused.
   */
  refused?(principal: Principal, body: unknown, error: unknown): Promise<void>;
}

export interface OperationDeps {
  readonly logger: Logger;
  readonly actions: ConsoleActions;
  readonly overview: OverviewSources;
  readonly history?: ConsoleHistory | undefined;
}

const scopeOf = (principal: Principal): HistoryScope => ({
  role: principal.role,
  institution: principal.institution,
  actor: principal.name,
});

/** The calls of /api/v1: the live state first, then the history's. */
export function apiOperations(deps: OperationDeps): Operation[] {
  return [...liveOperations(deps), ...historyOperations(deps), ...recoveryOperations(deps)];
}

const param = (input: OperationInput, key: string): string => input.params[key] ?? '';

/** An operator's action, recorded in the audit (and the log) whatever its outcome. */
function act(
  deps: OperationDeps,
  input: OperationInput,
  action: string,
  target: string,
  run: () => Promise<ActionResult>,
): Promise<ActionResult> {
  return recordAction(deps, input.principal, action, target, run);
}

/** The field of a request body as sent (before its schema holds), when it is a string. */
function historyOf(deps: OperationDeps): ConsoleHistory {
  if (deps.history === undefined)
    throw new HttpError(503, 'history_off', 'the console runs without history (live state only)');
  return deps.history;
}

/** Queues, routes, rejected deliveries and failed jobs: what Redis holds now. */
function liveOperations(deps: OperationDeps): Operation[] {
  return [
    {
      method: 'get',
      path: '/overview',
      summary: 'Institutions, queues, routes and health',
      response: Overview,
      handle: (input) => readOverview(deps.overview, input.principal),
    },
    {
      method: 'get',
      path: '/routes',
      summary: 'Routes: destination (redacted), rules, counts, recent failures',
      response: RouteList,
      handle: async (input) => ({ items: await deps.actions.listRoutes(input.principal) }),
    },
    {
      method: 'get',
      path: '/routes-run',
      summary:
        'The routes the workers run now (their registry in Redis), beside the console’s file',
      response: RoutesRun,
      handle: async () => {
        const run = await deps.actions.routesRun();
        return { ...run, consoleHash: run.consoleHash ?? null };
      },
    },
    ...(['pause', 'resume'] as const).map((verb): Operation => ({
      method: 'post',
      path: `/routes/{name}/${verb}`,
      summary: `${verb} a route (operator, all institutions)`,
      response: ActionResult,
      handle: (input) =>
        act(deps, input, `route.${verb}`, param(input, 'name'), () =>
          deps.actions.setRoutePaused(input.principal, param(input, 'name'), verb === 'pause'),
        ),
    })),
    {
      method: 'post',
      path: '/routes/{name}/replay',
      summary: 'Failed deliveries of a route back to waiting (operator)',
      response: ActionResult,
      body: z.object({ jobId: z.string().min(1).optional() }).optional(),
      handle: (input) => {
        const jobId = (input.body as { jobId?: string } | undefined)?.jobId;
        return act(deps, input, 'route.replay', param(input, 'name'), () =>
          deps.actions.replayRoute(input.principal, param(input, 'name'), jobId),
        );
      },
    },
    {
      method: 'get',
      path: '/rejected',
      summary: 'Signed deliveries that could not become an event',
      response: RejectedList,
      handle: async (input) => ({ items: await deps.actions.listRejected(input.principal) }),
    },
    {
      method: 'get',
      path: '/rejected/{ref}',
      summary: 'One rejected delivery with its bytes as text',
      response: RejectedDetail,
      handle: (input) => deps.actions.showRejected(input.principal, param(input, 'ref')),
    },
    {
      method: 'post',
      path: '/rejected/{ref}/replay',
      summary: 'Through the listener’s pipeline again (operator)',
      response: ActionResult,
      handle: (input) =>
        act(deps, input, 'rejected.replay', param(input, 'ref'), () =>
          deps.actions.replayRejected(input.principal, param(input, 'ref')),
        ),
    },
    {
      method: 'post',
      path: '/rejected/{ref}/remove',
      summary: 'Forget a rejected delivery (operator)',
      response: ActionResult,
      handle: (input) =>
        act(deps, input, 'rejected.remove', param(input, 'ref'), () =>
          deps.actions.removeRejected(input.principal, param(input, 'ref')),
        ),
    },
    {
      method: 'get',
      path: '/failed',
      summary: 'Failed event jobs, newest first',
      response: FailedList,
      handle: async (input) => ({ items: await deps.actions.listFailed(input.principal) }),
    },
    {
      method: 'get',
      path: '/failed/{jobId}',
      summary: 'One failed event job (patron fields masked for viewers)',
      response: FailedDetail,
      query: InstitutionQuery,
      handle: (input) =>
        deps.actions.showFailed(input.principal, param(input, 'jobId'), input.query.institution),
    },
    {
      method: 'post',
      path: '/failed/{jobId}/replay',
      summary: 'A failed event job back to waiting (operator)',
      response: ActionResult,
      query: InstitutionQuery,
      handle: (input) =>
        act(deps, input, 'failed.replay', param(input, 'jobId'), () =>
          deps.actions.replayFailed(
            input.principal,
            param(input, 'jobId'),
            input.query.institution,
          ),
        ),
    },
  ];
}

/** The history's calls: search, journey, replay by query, forget, audit (503 without it). */
function historyOperations(deps: OperationDeps): Operation[] {
  return [
    {
      method: 'get',
      path: '/events',
      summary: 'History search (the CLI’s filters as query parameters)',
      response: EventsPage,
      query: EventsQuery,
      needsHistory: true,
      handle: (input) => historyOf(deps).search(input.query, scopeOf(input.principal)),
    },
    {
      method: 'get',
      path: '/events/{institution}/{id}',
      summary: 'An event and its journey',
      response: EventDetail,
      needsHistory: true,
      handle: async (input) => {
        const found = await historyOf(deps).journey(
          param(input, 'institution'),
          param(input, 'id'),
          scopeOf(input.principal),
        );
        if (found === undefined)
          throw new HttpError(404, 'not_found', `no event ${param(input, 'id')}`);
        return found;
      },
    },
    backgroundStart(deps, {
      path: 'replays',
      action: 'replay',
      summary: 'Replay by query: { route, filters, dryRun } (operator)',
      response: ReplayAnswer,
      body: ReplayBody,
      call: (history, body, scope) => history.replayByQuery(body, scope),
    }),
    backgroundProgress(deps, {
      path: 'replays',
      noun: 'replay',
      summary: 'A replay by query’s progress: matched, queued so far, state',
      call: (history, id, scope) => history.replayProgress(id, scope),
    }),
    {
      method: 'post',
      path: '/forget',
      summary: 'Forget a patron: { user } (operator)',
      response: ForgetAnswer,
      body: ForgetBody,
      needsHistory: true,
      handle: (input) => historyOf(deps).forget(input.body, scopeOf(input.principal)),
      refused: keepRefusal(deps, 'forget'),
    },
    {
      method: 'get',
      path: '/audit',
      summary: 'Who did what',
      response: AuditList,
      query: AuditQuery,
      needsHistory: true,
      handle: (input) => historyOf(deps).listAudit(input.query, scopeOf(input.principal)),
    },
  ];
}

/** "Recover since" and the records the history set aside (503 without history). */
function recoveryOperations(deps: OperationDeps): Operation[] {
  return [
    backgroundStart(deps, {
      path: 'recoveries',
      action: 'recover',
      summary:
        'Recover since: { route, since, until?, dryRun } — events that failed there and never succeeded since (operator)',
      response: RecoveryAnswer,
      body: RecoveryBody,
      call: (history, body, scope) => history.recover(body, scope),
    }),
    backgroundProgress(deps, {
      path: 'recoveries',
      noun: 'recovery',
      summary: 'A recovery’s progress: matched, queued so far, state',
      call: (history, id, scope) => history.recoveryProgress(id, scope),
    }),
    {
      method: 'get',
      path: '/set-aside',
      summary:
        'Records the history set aside (PostgreSQL refused them): operators list, viewers count',
      response: SetAsideList,
      query: SetAsideQuery,
      needsHistory: true,
      handle: (input) => historyOf(deps).listSetAside(input.query, scopeOf(input.principal)),
    },
  ];
}

/** A POST that starts a run in the background (202, Location: its progress), or its dry run. */
function backgroundStart(
  deps: OperationDeps,
  spec: {
    readonly path: string;
    /** As the audit names a refusal of it. */
    readonly action: 'replay' | 'recover';
    readonly summary: string;
    readonly response: z.ZodType;
    readonly body: z.ZodType;
    readonly call: (
      history: ConsoleHistory,
      body: unknown,
      scope: HistoryScope,
    ) => Promise<unknown>;
  },
): Operation {
  return {
    method: 'post',
    path: `/${spec.path}`,
    summary: spec.summary,
    response: spec.response,
    body: spec.body,
    needsHistory: true,
    handle: (input) => spec.call(historyOf(deps), input.body, scopeOf(input.principal)),
    refused: keepRefusal(deps, spec.action),
    accepted: (result) => {
      const run = result as { dryRun: boolean; replayId?: string };
      return run.dryRun ? undefined : `/api/v1/${spec.path}/${run.replayId ?? ''}`;
    },
  };
}

/** A background run's progress by its id (404 once forgotten, or never started). */
function backgroundProgress(
  deps: OperationDeps,
  spec: {
    readonly path: string;
    readonly noun: string;
    readonly summary: string;
    readonly call: (history: ConsoleHistory, id: string, scope: HistoryScope) => Promise<unknown>;
  },
): Operation {
  return {
    method: 'get',
    path: `/${spec.path}/{id}`,
    summary: spec.summary,
    response: ReplayRun,
    needsHistory: true,
    handle: async (input) => {
      const id = param(input, 'id');
      const run = await spec.call(historyOf(deps), id, scopeOf(input.principal));
      if (run === undefined) throw new HttpError(404, 'not_found', `no ${spec.noun} ${id}`);
      return run;
    },
  };
}
