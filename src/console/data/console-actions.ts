import type { Job } from 'bullmq';
import type { RejectedEntry, RejectedStore } from '../../events/rejected-store';
import { findJob } from '../../operations/find-job';
import { replayFailedJob } from '../../operations/replay-failed-job';
import { replayOneRejected } from '../../operations/replay-one-rejected';
import type { ReplayTargets } from '../../operations/replay-targets';
import type { RedactSecrets } from '../../routes/create-secret-redactor';
import { shownTarget } from '../../routes/preview-delivery';
import type { RouteFigures } from '../../routes/read-route-figures';
import { readRouteReport } from '../../routes/read-route-report';
import { routeQueueCounts } from '../../routes/route-queue-counts';
import { routeWaitingCount } from '../../routes/route-waiting-count';
import { setRoutePaused as setRoutePausedForEveryProcess } from '../../routes/set-route-paused';
import type { Route } from '../../routes/routes-file';
import type { ActionResult, FailedJob, RouteFailure, RouteView } from './console-views';
import type { ConsoleQueues, EventQueue } from './console-queues';
import { consoleError } from './console-error';
import { isoOrNull, jobEventId, jobInstitution } from './job-institution';
import { viewFor } from './mask-for';
import type { Principal } from '../auth/principal';
import { seesInstitution } from '../auth/principal';
import { whileRedisAnswers } from './while-redis-answers';
import { readRoutesRun, readRoutesRunNames } from '../../routes/routes-run-registry';
import { missingRoute } from './missing-route';
import { routesRunView } from './routes-run-view';

export interface ConsoleActionsOptions {
  readonly queues: ConsoleQueues;
  readonly rejected: RejectedStore;
  readonly replayTargets: ReplayTargets;
  /** The routes file's substituted values masked (loadRoutesFile): targets and failed reasons. */
  readonly redactSecrets: RedactSecrets;
  /** sha256 of ROUTES_FILE as the console read it at its start (routes-run-registry.ts). */
  readonly routesFileHash?: string | undefined;
}

/** Recent failed attempts shown per route, newest first. */
const RECENT = 10;
/**
 * Failed event jobs listed per event queue (newest first): a page of 100 jobs read whole
 * (event and stack) stays within its time at any queue size; the CLI's `failed` lists them all.
 */
export const FAILED_LIST = 100;
/** Rejected deliveries listed, newest first; the CLI's `rejected list` shows them all. */
export const REJECTED_LIST = 100;

/**
 * What the console reads and does, over the queues and the rejected store, for one principal:
 * the same functions the CLI calls (replayFailedJob, replayOneRejected, BullMQ's pause). The API
 * and the pages both call these; they check role and institution here, once. Each step below
 * takes the options (the queues, the rejected store, the replay targets) as its shared state.
 */
export function createConsoleActions(options: ConsoleActionsOptions) {
  return {
    /** The routes' names, from the routes file (nothing read from Redis): the replay forms' list. */
    routeNames: (): string[] => options.queues.routes.map((one) => one.route.name),
    listRoutes: (principal: Principal) => listRoutes(options, principal),
    /** The routes the workers run now (their registry in Redis), beside the console's own. */
    routesRun: () =>
      whileRedisAnswers(options.queues.connection, 'the routes the workers run', async () =>
        routesRunView(
          await readRoutesRun(options.queues.connection, options.queues.queueName),
          options.queues.routes.map((one) => one.route.name),
          options.routesFileHash,
        ),
      ),
    setRoutePaused: (principal: Principal, name: string, paused: boolean) =>
      setRoutePaused(options, principal, name, paused),
    replayRoute: (principal: Principal, name: string, jobId?: string) =>
      replayRoute(options, principal, name, jobId),
    listRejected: (principal: Principal) => listRejected(options, principal),
    showRejected: (principal: Principal, ref: string) => showRejected(options, principal, ref),
    replayRejected: (principal: Principal, ref: string) => replayRejected(options, principal, ref),
    removeRejected: (principal: Principal, ref: string) => removeRejected(options, principal, ref),
    listFailed: (principal: Principal) => listFailed(options, principal),
    showFailed: (principal: Principal, jobId: string, institution?: string) =>
      showFailed(options, principal, jobId, institution),
    replayFailed: (principal: Principal, jobId: string, institution?: string) =>
      replayFailed(options, principal, jobId, institution),
  };
}
export type ConsoleActions = ReturnType<typeof createConsoleActions>;

/** The route of the console's routes file; one only the workers run is refused (missingRoute). */
async function routeNamed({ queues }: ConsoleActionsOptions, name: string) {
  const found = queues.routes.find((one) => one.route.name === name);
  if (found === undefined) {
    throw await missingRoute(name, () => readRoutesRunNames(queues.connection, queues.queueName));
  }
  return found;
}

function operator(principal: Principal, action: string): void {
  if (principal.role !== 'operator') throw consoleError.role(action);
}

function eventQueueOf(
  { queues }: ConsoleActionsOptions,
  principal: Principal,
  institution: string | undefined,
): EventQueue {
  const found = queues.events.find((one) => one.institution === (institution || undefined));
  if (found === undefined) throw consoleError.notFound(`institution ${institution ?? '(none)'}`);
  if (!seesInstitution(principal, found.institution)) {
    throw consoleError.scope(`institution ${found.institution ?? '(none)'}`);
  }
  return found;
}

/**
 * Each route's settings, state and figures (readRouteReport: every attempt, inline and queued,
 * the figures the CLI's `routes` shows) and its queue's counts; a scoped principal sees its own
 * institution's figures and failures.
 */
function listRoutes(options: ConsoleActionsOptions, principal: Principal): Promise<RouteView[]> {
  const { queues, redactSecrets } = options;
  return whileRedisAnswers(queues.connection, 'the routes', () =>
    Promise.all(
      queues.routes.map(async ({ route, queue }) => {
        const [counts, { figures, state }] = await Promise.all([
          routeQueueCounts(queue),
          readRouteReport(queues.connection, queue, route, {
            institution: principal.institution,
            failures: RECENT,
          }),
        ]);
        return {
          ...routeSettings(route, redactSecrets),
          ...state,
          counts,
          lastHour: figures.lastHour,
          p95DeliveryMs: figures.p95DeliveryMs,
          recentFailures: figures.recentFailures.map((failure) =>
            routeFailure(failure, redactSecrets),
          ),
        };
      }),
    ),
  );
}

/** Pausing holds a route for every institution: an institution-scoped principal may not. */
async function setRoutePaused(
  options: ConsoleActionsOptions,
  principal: Principal,
  name: string,
  paused: boolean,
): Promise<ActionResult> {
  operator(principal, paused ? 'pausing a route' : 'resuming a route');
  const { queue } = await routeNamed(options, name);
  if (principal.institution !== undefined) {
    throw consoleError.scope(`route ${name} (it carries every institution's deliveries)`);
  }
  // Answers once the pause holds: no attempt of the route starts afterwards, inline or queued.
  await setRoutePausedForEveryProcess(queue, paused);
  const waiting = await routeWaitingCount(queue);
  return {
    done: true,
    message: `route ${name} ${paused ? 'paused' : 'resumed'} (${String(waiting)} waiting)`,
    count: waiting,
  };
}

/** Failed deliveries of the route back to waiting; a scoped principal replays its own only. */
async function replayRoute(
  options: ConsoleActionsOptions,
  principal: Principal,
  name: string,
  jobId?: string,
): Promise<ActionResult> {
  operator(principal, 'replaying deliveries');
  const { queue } = await routeNamed(options, name);
  const failed =
    jobId === undefined
      ? await queue.getFailed(0, -1)
      : [await findJob(queue, jobId)].filter((job): job is Job => job !== undefined);
  if (jobId !== undefined && failed.length === 0) throw consoleError.notFound(`delivery ${jobId}`);
  const mine = failed.filter((job) => seesInstitution(principal, jobInstitution(job) ?? undefined));
  if (jobId !== undefined && mine.length === 0) throw consoleError.scope(`delivery ${jobId}`);
  let replayed = 0;
  for (const job of mine) {
    if ((await job.getState()) !== 'failed') continue;
    await replayFailedJob(job);
    replayed += 1;
  }
  return {
    done: true,
    message: `${String(replayed)} failed deliveries replayed on route ${name}`,
    count: replayed,
  };
}

async function listRejected({ rejected }: ConsoleActionsOptions, principal: Principal) {
  // Every institution's: the newest REJECTED_LIST only; one institution's: found among them all.
  const all = await rejected.list(principal.institution === undefined ? REJECTED_LIST : undefined);
  const mine = all
    .filter((entry) => seesInstitution(principal, entry.institution))
    .slice(0, REJECTED_LIST);
  return principal.role === 'operator' ? mine : mine.map(rejectedForViewer);
}

async function showRejected(
  { rejected }: ConsoleActionsOptions,
  principal: Principal,
  ref: string,
) {
  const found = await rejected.get(ref);
  if (found === undefined) throw consoleError.notFound(`rejected delivery ${ref}`);
  if (!seesInstitution(principal, found.entry.institution)) {
    throw consoleError.scope(`rejected delivery ${ref}`);
  }
  if (principal.role !== 'operator') return rejectedForViewer(found.entry);
  return { ...found.entry, text: found.body.toString('utf8') };
}

/**
 * A rejected delivery as a viewer sees it: when, from which institution, why, and how long. Its
 * bytes never parsed into an event, so no kind says what in them is safe: none of them is shown,
 * nor what was read from them (the event id).
 */
function rejectedForViewer(entry: RejectedEntry): RejectedEntry | Omit<RejectedEntry, 'requestId'> {
  const { ref, receivedAt, status, reason, bytes, institution } = entry;
  return {
    ref,
    receivedAt,
    status,
    reason,
    bytes,
    ...(institution === undefined ? {} : { institution }),
  };
}

async function replayRejected(
  options: ConsoleActionsOptions,
  principal: Principal,
  ref: string,
): Promise<ActionResult> {
  operator(principal, 'replaying a rejected delivery');
  await showRejected(options, principal, ref);
  const outcome = await replayOneRejected(options.rejected, options.replayTargets, ref);
  return { done: outcome.queued, message: outcome.message };
}

async function removeRejected(
  options: ConsoleActionsOptions,
  principal: Principal,
  ref: string,
): Promise<ActionResult> {
  operator(principal, 'removing a rejected delivery');
  await showRejected(options, principal, ref);
  const removed = await options.rejected.remove(ref);
  return { done: removed, message: removed ? `${ref}: removed` : `${ref}: already gone` };
}

async function listFailed(
  { queues }: ConsoleActionsOptions,
  principal: Principal,
): Promise<FailedJob[]> {
  const visible = queues.events.filter((one) => seesInstitution(principal, one.institution));
  const lists = await Promise.all(
    visible.map(async (one) =>
      (await one.queue.getFailed(0, FAILED_LIST - 1)).map((job) => {
        const listed = failedJob(one, job);
        return { ...listed, reason: viewFor(principal.role, job.data).text(listed.reason) };
      }),
    ),
  );
  return lists.flat().sort((a, b) => (b.failedAt ?? '').localeCompare(a.failedAt ?? ''));
}

async function showFailed(
  options: ConsoleActionsOptions,
  principal: Principal,
  jobId: string,
  institution?: string,
) {
  const one = eventQueueOf(options, principal, institution);
  const job = await findJob(one.queue, jobId);
  if (job === undefined) throw consoleError.notFound(`job ${jobId}`);
  // A reason or a stack may quote the event (a destination's answer): masked as the event is.
  const view = viewFor(principal.role, job.data);
  const listed = failedJob(one, job);
  return {
    ...listed,
    reason: view.text(listed.reason),
    data: view.data,
    stacktrace: (job.stacktrace ?? []).map(view.text),
  };
}

async function replayFailed(
  options: ConsoleActionsOptions,
  principal: Principal,
  jobId: string,
  institution?: string,
): Promise<ActionResult> {
  operator(principal, 'replaying a failed job');
  const one = eventQueueOf(options, principal, institution);
  const job = await findJob(one.queue, jobId);
  if (job === undefined) throw consoleError.notFound(`job ${jobId}`);
  const state = await job.getState();
  if (state !== 'failed') {
    return { done: false, message: `job ${job.id ?? jobId} is ${state}, not failed` };
  }
  await replayFailedJob(job);
  return { done: true, message: `job ${job.id ?? jobId} replayed: failed → waiting` };
}

function routeSettings(route: Route, redactSecrets: RedactSecrets) {
  return {
    name: route.name,
    destination: { kind: route.to.kind, target: shownTarget(route, redactSecrets) },
    match: route.match,
    retry: route.retry,
    ratePerSecond: route.ratePerSecond ?? null,
    concurrency: route.concurrency,
  };
}

/**
 * A failed attempt from the route figures: its text was masked for the event's personal values
 * when it was counted (route-figures.ts); the routes file's secrets are masked here.
 */
function routeFailure(
  failure: RouteFigures['recentFailures'][number],
  redactSecrets: RedactSecrets,
): RouteFailure {
  return {
    jobId: failure.jobId,
    eventId: failure.eventId,
    institution: failure.institution,
    attemptsMade: failure.attempt,
    outcome: failure.outcome,
    failedAt: failure.at,
    reason: redactSecrets(failure.error || '(no reason given)'),
  };
}

function failedJob(one: EventQueue, job: Job): FailedJob {
  return {
    jobId: job.id ?? '',
    institution: one.institution ?? null,
    eventInstitution: jobInstitution(job),
    queue: one.queue.name,
    eventId: jobEventId(job),
    action: job.name,
    attemptsMade: job.attemptsMade,
    attempts: job.opts.attempts ?? 1,
    failedAt: isoOrNull(job.finishedOn),
    reason: job.failedReason || '(no reason given)',
  };
}
