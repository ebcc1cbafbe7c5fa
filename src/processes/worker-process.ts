import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Telemetry, Worker } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { WorkerConfig } from '../config';
import { bodyCapsOf } from '../body-caps-of';
import type { InstitutionEntry } from '../institutions/institutions-file';
import { institutionQueueName } from '../institutions/institution-queue-name';
import { registerQueueNodes } from '../metrics/queue-nodes';
import { loadInstitutionsFile } from '../institutions/load-institutions-file';
import type { Logger } from '../logger';
import { observeWorker } from '../metrics/observe-worker';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { FanOut } from '../routes/create-fan-out';
import { loadRoutesFile } from '../routes/load-routes-file';
import { registerRoutesRun, routesFileHash } from '../routes/routes-run-registry';
import { createApiRemainingWriter } from '../worker/api-remaining-store';
import { productUserAgent } from '../routes/product-user-agent';
import { startRouting } from '../routes/start-routing';
import type { Routing } from '../routes/start-routing';
import { createSvcClient } from '@svcws/client';
import type { SvcClient } from '@svcws/client';
import { createWorker } from '../worker/create-worker';
import type { CreateWorkerOptions, RunningWorker } from '../worker/create-worker';
import type { EventStep } from '../worker/event-step';
import type { RunStage } from '../worker/event-run';
import { eventRunDispatch } from '../worker/event-run-stages';
import { spanStage } from '../worker/span-stage';
import { handlerEntries } from '../handlers/handler-entries';
import type {
  BackgroundDeps,
  Closeable,
  EventQueue,
  GuardDeps,
  HandlerEntry,
} from '../worker/handler-entry';
import { createHandlerRegistry } from '../worker/handler-registry';
import type { HandlerRegistry } from '../worker/handler-registry';
import { watchExpectedEvents } from '../expected/watch-expected-events';
import { startHistory } from '../history';
import type { HistoryRuntime, HistoryTuning, OutcomeReader, OutcomesOf } from '../history';
import { runEndStage } from '../worker/run-end-stage';
import { withArticle } from '../with-article';

export interface WorkerProcessOptions {
  readonly config: WorkerConfig;
  readonly logger: Logger;
  /** The worker's Redis connection (openWorkerConnection), opened and closed by the caller. */
  readonly connection: RedisClient;
  /** For `${VAR}` in ROUTES_FILE and INSTITUTIONS_FILE (bin/ passes the process environment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The worker's metrics (bin/ serves them on WORKER_METRICS_PORT): every event worker is
   * observed, every API call and remaining budget counted, and route metrics go to its registry.
   */
  readonly metrics?: WorkerMetrics;
  /** Lock, stall and pause timings (tests make them short). */
  readonly tuning?: Pick<CreateWorkerOptions, 'lockDuration' | 'stalledInterval' | 'budgetPauseMs'>;
  /** The handler list; handler-entries.ts unless given. */
  readonly handlers?: readonly HandlerEntry[];
  /** BullMQ's telemetry when tracing is on (src/tracing/start-tracing.ts); nothing is traced without. */
  readonly telemetry?: Telemetry | undefined;
  /** The history's timings (tests make them short), or an opened database (the demo's PGlite). */
  readonly historyOptions?: HistoryTuning;
}

export interface WorkerProcess extends RunningWorker {
  /** Every event worker: one per institution with INSTITUTIONS_FILE (`worker` is the first). */
  readonly workers: readonly Worker[];
  /** The handler entries' start-up work (a kind room's clean-up), done. */
  readonly startedUp: Promise<void>;
}

/**
 * The worker process from its configuration and opened connection: the event worker of each
 * queue with its API client and handler list, routing's fan-out as an event step (ROUTES_FILE),
 * the history (DATABASE_URL) and the handler entries' start-up work. bin/worker.ts adds the metrics server and signals.
 *
 * How often one failing call is sent, at most: (SVC_MAX_RETRIES + 1) × JOB_ATTEMPTS — the client's
 * own retries inside each BullMQ attempt. The worker's SVC_MAX_RETRIES defaults to 0 and
 * JOB_ATTEMPTS to 10 (src/config.ts), so 1 × 10 = 10 sends, spread over the jobs' exponential
 * backoff (5 s doubling: about 21 to 43 minutes in all with its jitter) — long enough to outlast a
 * key rotation or an instance that is still finishing, where the client's quick retries were not.
 * Not counted: a 429 spends no attempt (the queue waits Retry-After each time, and the budget pause
 * holds it when the day's calls are spent), and a run lost with its worker (killed, lock lost)
 * is taken again up to WORKER_MAX_STALLED_COUNT times without spending one.
 */
export function createWorkerProcess(options: WorkerProcessOptions): WorkerProcess {
  const { config, logger, env } = options;
  // Both files are read at start-up, so a bad one stops the start naming what is wrong.
  const members =
    config.INSTITUTIONS_FILE === undefined
      ? undefined
      : loadInstitutionsFile(config.INSTITUTIONS_FILE, env).institutions;
  // Clients and handlers first: a handler list that cannot be built starts nothing.
  // The last API budget per institution, for the console's overview.
  const storeRemaining = createApiRemainingWriter(options.connection, config.QUEUE_NAME);
  const queues = (members ?? [undefined]).map((member) => queueOf(options, member, storeRemaining));
  const entries = options.handlers ?? handlerEntries;
  const startedUp = startUpWork(entries, config, logger);
  const history = startHistory({
    config,
    connection: options.connection,
    logger,
    eventQueues: queues.map((queue) => queueNameOf(config, queue.member)),
    outcomes: outcomesOf(entries),
    ...(options.metrics === undefined ? {} : { registry: options.metrics.registry }),
    ...options.historyOptions,
  });
  const routing =
    config.ROUTES_FILE === undefined
      ? undefined
      : routingOf(options, config.ROUTES_FILE, history, (members?.length ?? 1) > 1);
  const named = queues.map((queue) => namedQueue(config, queue));
  const registry = options.metrics?.registry;
  if (registry !== undefined)
    registerQueueNodes(registry, options.connection, namesOf(named, routing));
  const file = config.EXPECTED_EVENTS_FILE;
  const watch = watchExpectedEvents({ ...options, file, registry, queues: named, entries });
  const running = named.map((queue) =>
    startEventWorker(
      options,
      { entries, parts: queue, expected: watch(queue.queueName) },
      {
        fanOut: routing?.fanOut,
        history,
      },
    ),
  );
  const background = backgroundWork(entries, { ...options, registry, queues: named });
  const [first] = running;
  if (first === undefined) throw new Error('no event worker');
  if (options.metrics !== undefined) {
    for (const one of running) observeWorker(one.worker, options.metrics);
  }
  return {
    worker: first.worker,
    workers: running.map((one) => one.worker),
    startedUp,
    close: async () => {
      await Promise.all(background.map((work) => work.close()));
      await Promise.all(running.map((one) => one.close()));
      await routing?.close();
      await history?.close();
    },
  };
}

/**
 * Routing (docs/routing.md): one set of route queues for every institution's events, taken
 * round-robin across the institutions when there are several.
 */
function routingOf(
  options: WorkerProcessOptions,
  routesFile: string,
  history: HistoryRuntime | undefined,
  fairAcrossInstitutions: boolean,
): Routing {
  const { config, logger, connection, env, metrics, tuning = {}, telemetry } = options;
  const readAt = new Date().toISOString();
  const { routes, redactSecrets } = loadRoutesFile(routesFile, env);
  const routing = startRouting({
    fairAcrossInstitutions,
    userAgent: productUserAgent(),
    routes,
    redactSecrets,
    connection,
    redisUrl: config.REDIS_URL,
    queueName: config.QUEUE_NAME,
    logger,
    ...(metrics === undefined ? {} : { registry: metrics.registry }),
    ...(telemetry === undefined ? {} : { telemetry }),
    ...(history === undefined ? {} : { history: history.recorder }),
    ...(tuning.lockDuration === undefined ? {} : { lockDuration: tuning.lockDuration }),
    ...(tuning.stalledInterval === undefined ? {} : { stalledInterval: tuning.stalledInterval }),
    ...(config.ROUTE_INLINE === 'on'
      ? { inline: { deadlineMs: config.ROUTE_INLINE_DEADLINE_MS } }
      : {}),
  });
  // The console shows the routes the workers run from this, not from its own start-up copy.
  const registration = registerRoutesRun({
    redis: connection,
    queueName: config.QUEUE_NAME,
    entry: {
      workerId: `${hostname()}-${String(process.pid)}-${randomBytes(3).toString('hex')}`,
      host: hostname(),
      pid: process.pid,
      file: routesFile,
      hash: routesFileHash(routesFile) ?? 'unreadable',
      routes: routes.map((route) => route.name),
      readAt,
    },
  });
  return {
    ...routing,
    close: async () => {
      await registration.close();
      await routing.close();
    },
  };
}

/** What one event queue's worker is built from. */
interface EventQueueParts {
  readonly member: InstitutionEntry | undefined;
  readonly logger: Logger;
  readonly config: WorkerConfig;
  readonly client: SvcClient;
  readonly handlers: HandlerRegistry;
}

/**
 * The client and handlers of one queue: the single institution's (QUEUE_NAME, SVC_* keys) or one
 * member's (its own key, base address, rate limiter and budget).
 */
function queueOf(
  options: WorkerProcessOptions,
  member: InstitutionEntry | undefined,
  storeRemaining: (remaining: number, institution: string | undefined) => void,
): EventQueueParts {
  const logger =
    member === undefined ? options.logger : options.logger.child({ institution: member.code });
  const config = memberConfig(options.config, member);
  const client = clientOf(
    config,
    logger,
    remainingOf(options.metrics, member?.code, storeRemaining),
  );
  const handlers = createHandlerRegistry({
    logger,
    handlers: (options.handlers ?? handlerEntries).map((entry) => {
      const handler = entry.create({ config, client });
      // The list is read by its actions (docs/worker.md): an entry must build the handler it names.
      if (handler.action !== entry.action) {
        throw new RangeError(
          `handler entry ${entry.action} built ${withArticle(handler.action)} handler`,
        );
      }
      return handler;
    }),
  });
  return { member, logger, config, client, handlers };
}

/**
 * The worker of one queue, its runs' stages in their order (event-run-stages.ts). A member's 429
 * or spent budget sets the rate limit of its own queue only, so the other members' work goes on.
 */
function startEventWorker(
  options: WorkerProcessOptions,
  queue: { entries: readonly HandlerEntry[]; parts: NamedQueue; expected: RunStage | undefined },
  { fanOut, history }: { fanOut: FanOut | undefined; history: HistoryRuntime | undefined },
): RunningWorker {
  const { member, logger, config, client, handlers } = queue.parts;
  const routing = fanOut === undefined ? undefined : memberFanOut(fanOut, member);
  // The event is recorded as it is routed (both in one step): its journey starts with its arrival.
  const step = history === undefined ? routing : history.recordedWith(routing);
  const { telemetry } = options;
  const dispatch = eventRunDispatch({
    readPayload: handlers.readPayload,
    span: telemetry === undefined ? undefined : spanStage(member?.code),
    // The process's logger: the member's binds `institution`, which the line names itself.
    end: runEndStage({ logger: options.logger, institution: member?.code }),
    guards: guardsOf(queue.entries, { connection: options.connection, queue: queue.parts }),
    journey: history?.journey,
    steps: step === undefined ? [] : [step],
    outcome: history?.outcome,
    expected: queue.expected,
    handle: handlers.handle,
  });
  return createWorker({
    connection: options.connection,
    queueName: queueNameOf(config, member),
    concurrency: config.WORKER_CONCURRENCY,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
    dispatch,
    ...(telemetry === undefined ? {} : { telemetry }),
    logger,
    remaining: client.remaining,
    remainingFloor: config.SVC_REMAINING_FLOOR,
    ...options.tuning,
  });
}

/** Each entry's guard, by the action it guards. */
function guardsOf(entries: readonly HandlerEntry[], deps: GuardDeps): Map<string, RunStage> {
  const guards = new Map<string, RunStage>();
  for (const entry of entries)
    if (entry.guard !== undefined) guards.set(entry.action, entry.guard(deps));
  return guards;
}

/** A queue's parts with its institution and name: for the entries' guards and background work. */
type NamedQueue = EventQueueParts & EventQueue;

function namedQueue(config: WorkerConfig, queue: EventQueueParts): NamedQueue {
  const institution = queue.member?.code ?? config.INSTITUTION_CODE;
  return { ...queue, institution, queueName: queueNameOf(config, queue.member) };
}

/** The entries' background work over every queue (a kind room's schedule), started. */
function backgroundWork(entries: readonly HandlerEntry[], deps: BackgroundDeps): Closeable[] {
  return entries.flatMap((entry) => entry.background?.(deps) ?? []);
}

/** Each entry's start-up work, side by side; none of them throws (handler-entry.ts). */
async function startUpWork(
  entries: readonly HandlerEntry[],
  config: WorkerConfig,
  logger: Logger,
): Promise<void> {
  await Promise.all(entries.map(async (entry) => entry.startUp?.({ config, logger })));
}

/** The entries that state their outcome, by action: the history keeps what each run came to. */
function outcomesOf(entries: readonly HandlerEntry[]): OutcomesOf {
  const outcomes = new Map<string, OutcomeReader>();
  for (const { action, outcomeOf, subjectOf } of entries) {
    if (outcomeOf !== undefined) outcomes.set(action, { outcomeOf, subjectOf });
  }
  return outcomes;
}

/** The event queue of the single institution, or of one member. */
function queueNameOf(config: WorkerConfig, member: InstitutionEntry | undefined): string {
  return member === undefined
    ? config.QUEUE_NAME
    : institutionQueueName(config.QUEUE_NAME, member.code);
}

/** The configuration of one member's queue: its entry's settings over the worker's own. */
function memberConfig(config: WorkerConfig, member: InstitutionEntry | undefined): WorkerConfig {
  if (member === undefined) return config;
  return {
    ...config,
    SVC_BASE_URL: member.baseUrl,
    SVC_API_KEY: member.apiKey,
    SVC_RATE_PER_SECOND: member.ratePerSecond ?? config.SVC_RATE_PER_SECOND,
    SVC_REMAINING_FLOOR: member.remainingFloor ?? config.SVC_REMAINING_FLOOR,
    DOWNLOAD_FORMAT: member.downloadFormat ?? config.DOWNLOAD_FORMAT,
    RECONCILE_JOB_IDS: member.reconcileJobIds ?? config.RECONCILE_JOB_IDS,
  };
}

/**
 * Every remaining budget a client reads goes to the metrics, with the member's code, and to Redis
 * for the console's overview (src/worker/api-remaining-store.ts).
 */
function remainingOf(
  metrics: WorkerMetrics | undefined,
  code: string | undefined,
  storeRemaining: (remaining: number, institution: string | undefined) => void,
): (remaining: number) => void {
  return (remaining) => {
    storeRemaining(remaining, code);
    // Every answer of the service carries the remaining budget: one API call each.
    metrics?.remaining(remaining, code);
    metrics?.apiCall();
  };
}

/** The API client of the single institution (SVC_* keys) or of one member (its settings). */
function clientOf(
  config: WorkerConfig,
  logger: Logger,
  onRemaining: ((remaining: number) => void) | undefined,
): SvcClient {
  const { SVC_BASE_URL: baseUrl, SVC_API_KEY: apiKey } = config;
  // config.ts requires both without INSTITUTIONS_FILE; the file requires both for a member.
  if (baseUrl === undefined || apiKey === undefined) throw new Error('no API key or base address');
  return createSvcClient({
    baseUrl,
    apiKey,
    ratePerSecond: config.SVC_RATE_PER_SECOND,
    timeoutMs: config.SVC_TIMEOUT_MS,
    maxRetries: config.SVC_MAX_RETRIES,
    remainingFloor: config.SVC_REMAINING_FLOOR,
    maxBodyBytes: bodyCapsOf(config),
    logger,
    ...(onRemaining === undefined ? {} : { onRemaining }),
  });
}

/**
 * The route queues are shared by every member, and two members' platforms may use the same event
 * id: a member's route jobs carry its code, so one member's event never hides another's.
 */
function memberFanOut(fanOut: FanOut, member: InstitutionEntry | undefined): EventStep {
  const idOf = (jobId: string) => (member === undefined ? jobId : `${member.code}-${jobId}`);
  // The routes it matched go on the run's end line (run-end-stage.ts).
  return async (event, jobId) => ({ routes: await fanOut(event, idOf(jobId)) });
}

/** Every queue this worker serves, by name: its event queues, then its route queues. */
function namesOf(
  named: readonly { queueName: string }[],
  routing: Routing | undefined,
): () => string[] {
  const routes = [...(routing?.queues.values() ?? [])].map((queue) => queue.name);
  const names = [...named.map((queue) => queue.queueName), ...routes];
  return () => names;
}
