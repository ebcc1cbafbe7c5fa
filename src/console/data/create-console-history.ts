import type { JobsOptions, Queue } from 'bullmq';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import {
  auditPersonSearch,
  forgetPerson,
  historyBody,
  historyJourney,
  listAudit,
  previewReplay,
  searchHistory,
  writeAudit,
} from '../../history';
import type {
  ForgetOptions,
  HistoryFilters,
  HistoryKeys,
  HistoryPage,
  JourneyStep,
  SqlExecutor,
} from '../../history';
import { HttpError } from '../../http/http-error';
import type { Logger } from '../../logger';
import { createBackgroundReplays } from '../../operations/background-replays';
import { replayDryRunText } from '../../operations/replay-dry-run-text';
import type { ReplayRule } from '../../operations/replay-rule';
import type { BackgroundReplays } from '../../operations/background-replays';
import type { RunCap } from '../../operations/running-runs';
import { consoleError } from './console-error';
import { viewFor } from './mask-for';
import { needsOperator, parsed } from './console-input';
import { consoleRecoveries } from './console-recoveries';
import { missingRoute } from './missing-route';
import { consoleSetAside } from './console-set-aside';
import type { RetentionDays } from '../../history/prune-on-schedule';
import type { RouteMatch } from '../../routes/routes-file';
import type { AuditRecord, ConsoleHistory, HistoryScope, ReplayAnswer } from './console-history';
import { errField } from '../../err-field';
import { logOperatorAction } from '../../operations/operator-action';

/** Where a replay by query queues: the route's queue and its attempts and backoff. */
export interface ReplayTarget {
  readonly queue: Queue;
  readonly jobOptions: JobsOptions;
  /** The route's `match:` (which kinds it takes: a recovery's retention bound). */
  readonly match: RouteMatch;
  /** The events a replay sends there: the route's own (widened to every one only when asked). */
  readonly rule: (ignoreRouteMatch: boolean) => ReplayRule;
}

export interface ConsoleHistoryOptions {
  readonly db: SqlExecutor;
  readonly keys: HistoryKeys;
  /** The route's queue for a replay; undefined: no such route. */
  readonly replayTarget: (route: string) => ReplayTarget | undefined;
  /**
   * The routes the workers run now (their registry in Redis): a replay or recovery to one the
   * console did not read at its start is refused 409 `route_not_in_console`, not 404.
   */
  readonly routesRunByWorkers?: () => Promise<readonly string[]>;
  /** Every route's name, in the routes file's order (an event's "deliver again" list). */
  readonly routeNames: () => readonly string[];
  /** Where else a forget looks (queues, outbox, rejected store), as the CLI's `history forget`. */
  readonly forgetIn?: Omit<ForgetOptions, 'db' | 'keys' | 'actor'>;
  /** The history's retention (HISTORY_RETENTION_DAYS, HISTORY_PATRON_RETENTION_DAYS). */
  readonly retention: RetentionDays;
  /** Deliveries queued per second at most by a replay (replayHistory's default when unset). */
  readonly replayRatePerSecond?: number;
  /** Replay and recovery runs at once at most, over every process (REPLAY_MAX_RUNNING). */
  readonly runCap?: RunCap;
  readonly logger?: Logger;
}

const time = z.iso.datetime({ offset: true }).transform((text) => new Date(text));
const text = z.string().min(1).max(500);

/** The search filters by the CLI's names (src/cli/history-filter-options.ts). */
const HistoryQuery = z.strictObject({
  id: text.optional(),
  user: text.optional(),
  barcode: text.optional(),
  mms: text.optional(),
  loan: text.optional(),
  request: text.optional(),
  'job-instance': text.optional(),
  institution: text.optional(),
  action: text.optional(),
  event: text.optional(),
  since: time.optional(),
  until: time.optional(),
  route: text.optional(),
  outcome: z.enum(['delivered', 'failed', 'pending', 'skipped']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  after: text.optional(),
});
/** As `history search`: a route's outcome names both (src/cli/history-filter-options.ts). */
const SearchQuery = HistoryQuery.refine(
  (query) => (query.route === undefined) === (query.outcome === undefined),
  { message: 'route and outcome go together', path: ['route'] },
);

const ReplayRequest = z.strictObject({
  route: text,
  filters: HistoryQuery.omit({ limit: true, after: true })
    .refine((query) => (query.route === undefined) === (query.outcome === undefined), {
      message: 'route and outcome go together',
      path: ['route'],
    })
    .default({}),
  dryRun: z.boolean().default(true),
  /** Sends the events the route does not take (its `match:`) too; audited as such. */
  ignoreRouteMatch: z.boolean().default(false),
});
const ForgetRequest = z.strictObject({ user: text });
const AuditListQuery = z.strictObject({
  actor: text.optional(),
  action: text.optional(),
  before: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/** The filters within the principal's institution: forced for a scoped one, 403 for another. */
function scopedFilters(query: z.infer<typeof HistoryQuery>, scope: HistoryScope): HistoryFilters {
  const { 'job-instance': jobInstance, ...rest } = query;
  if (scope.institution !== undefined && rest.institution !== undefined) {
    if (rest.institution !== scope.institution)
      throw consoleError.scope(`institution ${rest.institution}`);
  }
  const institution = scope.institution ?? rest.institution;
  const filters: Record<string, unknown> = { ...rest, jobInstance, institution };
  return Object.fromEntries(
    Object.entries(filters).filter(([, value]) => value !== undefined),
  ) as HistoryFilters;
}

/**
 * ConsoleHistory over the history room's own functions (src/history/): the search and journey,
 * replay by query and forget as the CLI runs them, and the audit table. The principal's scope is
 * applied here, once, for every page and API call.
 */
export function createConsoleHistory(options: ConsoleHistoryOptions): ConsoleHistory {
  const replays = createBackgroundReplays({
    context: { db: options.db, keys: options.keys },
    ratePerSecond: options.replayRatePerSecond,
    logger: options.logger,
    runCap: options.runCap,
  });
  const history = {
    ...historyCalls(options, replays),
    ...consoleRecoveries(options, replays),
    ...consoleSetAside(options),
  };
  const guarded =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        if (error instanceof HttpError) throw error;
        options.logger?.warn({ err: errField(error) }, 'history call failed');
        throw new HttpError(503, 'history_unavailable', 'the history database does not answer');
      }
    };
  return {
    search: guarded(history.search),
    journey: guarded(history.journey),
    replayByQuery: guarded(history.replayByQuery),
    replayProgress: history.replayProgress,
    recover: guarded(history.recover),
    recoveryProgress: history.recoveryProgress,
    listSetAside: guarded(history.listSetAside),
    forget: guarded(history.forget),
    listAudit: guarded(history.listAudit),
    audit: history.audit,
    ping: () => history.ping().catch(() => false),
    close: history.close,
  };
}

/** The calls, each one step over the history room's functions; guarded by the caller. */
function historyCalls(
  options: ConsoleHistoryOptions,
  replays: BackgroundReplays,
): Omit<ConsoleHistory, 'recover' | 'recoveryProgress' | 'listSetAside'> {
  return {
    search: (query, scope) => search(options, query, scope),
    journey: (institution, id, scope) => journey(options, institution, id, scope),
    replayByQuery: (request, scope) => replayByQuery(options, replays, request, scope),
    replayProgress: (replayId, scope) => {
      const run = replays.get(replayId);
      if (run !== undefined && scope.institution !== undefined) {
        if (run.institution !== scope.institution) throw consoleError.scope(`replay ${replayId}`);
      }
      return Promise.resolve(run);
    },
    forget: (request, scope) => forget(options, request, scope),
    listAudit: (query, scope) =>
      listAudit(options.db, {
        ...parsed(AuditListQuery, query, 'query'),
        ...(scope.institution === undefined ? {} : { institution: scope.institution }),
      }),
    audit: (record) => audit(options, record),
    ping: async () => {
      await options.db.query('SELECT 1');
      return true;
    },
    close: () => replays.close(),
  };
}

async function search(
  options: ConsoleHistoryOptions,
  query: unknown,
  scope: HistoryScope,
): Promise<HistoryPage> {
  const filters = scopedFilters(parsed(SearchQuery, query, 'query'), scope);
  if (filters.after !== undefined && !isCursor(filters.after)) {
    throw consoleError.badField('query.after', 'not a `next` of this history');
  }
  await personSought(options, scope, filters, 'history.search.person');
  return searchHistory({ db: options.db, keys: options.keys }, filters);
}

/**
 * A search by person answers "does this person borrow here": operators only, and each one kept
 * in the audit under the person's keyed hash (as a forget is), refused ones too.
 */
async function personSought(
  options: ConsoleHistoryOptions,
  scope: HistoryScope,
  filters: HistoryFilters,
  action: string,
): Promise<void> {
  if (filters.user === undefined) return;
  const operator = scope.role === 'operator';
  await auditPersonSearch(options, {
    actor: scope.actor ?? 'console',
    action,
    person: filters.user,
    details: {
      role: scope.role,
      outcome: operator ? 'done' : 'refused',
      ...(scope.institution === undefined ? {} : { institution: scope.institution }),
    },
  });
  if (!operator) throw consoleError.role('searching by person (patron id, card number or e-mail)');
}

async function journey(
  options: ConsoleHistoryOptions,
  institution: string,
  id: string,
  scope: HistoryScope,
) {
  const { db, keys } = options;
  if (scope.institution !== undefined && scope.institution !== institution) {
    throw consoleError.scope(`institution ${institution}`);
  }
  const context = { db, keys };
  const steps = await historyJourney(context, id, institution);
  const received = steps.find((step) => step.kind === 'received');
  if (received === undefined) return undefined;
  const body: CanonicalEvent | undefined = await historyBody(context, received.event);
  if (scope.role === 'operator') {
    const routes = body === undefined ? [] : routesTaking(options, body);
    return { event: received.event, body: body ?? null, steps, routes };
  }
  // A viewer: the body's safe fields only (mask-for.ts), and the errors without what it hides.
  const view = viewFor(scope.role, body);
  return {
    event: received.event,
    body: body === undefined ? null : view.data,
    steps: body === undefined ? steps : steps.map((step) => withTextMasked(step, view.text)),
  };
}

/** The routes that take the event (as its fan-out tests them): where it may be delivered again. */
function routesTaking(options: ConsoleHistoryOptions, event: CanonicalEvent): string[] {
  return options
    .routeNames()
    .filter((name) => options.replayTarget(name)?.rule(false).takes(event) === true);
}

function withTextMasked(step: JourneyStep, text: (text: string) => string): JourneyStep {
  return 'error' in step && step.error !== null ? { ...step, error: text(step.error) } : step;
}

async function forget(options: ConsoleHistoryOptions, request: unknown, scope: HistoryScope) {
  needsOperator(scope, 'forget');
  // A person is forgotten everywhere this service holds them, across institutions.
  if (scope.institution !== undefined)
    throw consoleError.scope('forgetting a person (every institution)');
  const asked = parsed(ForgetRequest, request, 'body');
  const actor = scope.actor ?? 'console';
  const report = await forgetPerson(
    { ...options.forgetIn, db: options.db, keys: options.keys, actor },
    asked.user,
  );
  // The person is named by nobody on the line: the audit row keeps their keyed hash.
  if (options.logger !== undefined) {
    logOperatorAction(options.logger, 'console', {
      actor,
      action: 'forget',
      target: 'person',
      outcome: 'done',
      count: report.historyEvents,
    });
  }
  return report;
}

function audit({ db, keys }: ConsoleHistoryOptions, record: AuditRecord): Promise<void> {
  return writeAudit(db, {
    at: record.at,
    actor: record.actor,
    action: record.action,
    // A person is kept as a forget keeps them: their keyed hash (docs/privacy.md).
    target: record.person === undefined ? record.target : keys.hashPerson(record.person),
    details: {
      role: record.role,
      outcome: record.outcome,
      ...(record.institution === undefined ? {} : { institution: record.institution }),
      ...(record.detail === undefined ? {} : { detail: record.detail }),
      ...(record.reason === undefined ? {} : { reason: record.reason }),
    },
  });
}

/** A `next` as searchHistory makes it (history-filters.ts): base64url JSON of three strings. */
function isCursor(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString());
    return (
      Array.isArray(parsed) && parsed.length === 3 && parsed.every((x) => typeof x === 'string')
    );
  } catch {
    return false;
  }
}

/**
 * A dry run counts up to this many matches: beyond, "more than" is all an operator needs to
 * decide, and an exact count of a broad filter over millions of events takes longer than a page
 * may (the replay's progress counts them all).
 */
const DRY_RUN_COUNT_AT_MOST = 10_000;

/** The dry run (count and sample), or the replay started in the background. */
async function replayByQuery(
  options: ConsoleHistoryOptions,
  replays: BackgroundReplays,
  request: unknown,
  scope: HistoryScope,
): Promise<ReplayAnswer> {
  needsOperator(scope, 'replay');
  const context = { db: options.db, keys: options.keys };
  const asked = parsed(ReplayRequest, request, 'body');
  const filters = scopedFilters(asked.filters, scope);
  const target = options.replayTarget(asked.route);
  if (target === undefined) throw await missingRoute(asked.route, options.routesRunByWorkers);
  const { ignoreRouteMatch } = asked;
  if (asked.dryRun) {
    await personSought(options, scope, filters, 'replay.dry-run.person');
    const dry = await previewReplay(context, filters, {
      takes: target.rule(false).takes,
      countAtMost: DRY_RUN_COUNT_AT_MOST,
    });
    const text = replayDryRunText(dry, asked.route, ignoreRouteMatch);
    return { dryRun: true, route: asked.route, ignoreRouteMatch, ...dry, ...text };
  }
  const run = await replays.start({
    route: asked.route,
    filters,
    actor: scope.actor ?? 'console',
    institution: scope.institution,
    target: { ...target, takes: target.rule(ignoreRouteMatch).takes },
    ignoreRouteMatch,
  });
  if ('refused' in run) throw consoleError.runRefused(run.refused);
  return { dryRun: false, ...run };
}
