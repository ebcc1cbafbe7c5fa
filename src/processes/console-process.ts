import { runsKey } from '../operations/running-runs';
import { replayRule } from '../operations/replay-rule';
import { Queue } from 'bullmq';
import type { Express } from 'express';
import type { RedisClient } from '../redis/redis-client';
import { readClusterNodeStates } from '../redis/cluster-node-states';
import { createReplayTargets } from '../operations/replay-targets';
import type { ConsoleConfig } from '../config';
import {
  loadConsoleRolesFile,
  loadConsoleTokensFile,
  createConsoleActions,
  createConsoleApp,
  createConsoleAuth,
  openConsoleQueues,
  createConsoleHistory,
  trustedAddresses,
} from '../console';
import type { ConsoleAuth, ConsoleHistory, ConsoleQueues, OverviewSources } from '../console';
import { createRejectedStore } from '../events/rejected-store';
import type { RejectedStore } from '../events/rejected-store';
import type { ReplayTargets } from '../operations/replay-targets';
import { loadExpectedEventsFile } from '../expected/expected-events-file';
import { expectedWatchesOf } from '../expected/expected-watches-of';
import { readExpectedEvents } from '../expected/read-expected-events';
import { deriveHistoryKeys, historyStreamKey, openPgExecutor } from '../history';
import type { SqlExecutor } from '../history';
import { loadInstitutionsFile } from '../institutions/load-institutions-file';
import type { Logger } from '../logger';
import { routeJobOptions } from '../routes/create-fan-out';
import type { RedactSecrets } from '../routes/create-secret-redactor';
import { loadRoutesFile } from '../routes/load-routes-file';
import { redactUrlCredentials } from '../routes/redact-url-credentials';
import { KEEP_COMPLETED_HOURS } from '../routes/route-job-options';
import { readRoutesRunNames, routesFileHash } from '../routes/routes-run-registry';
import { readApiRemaining } from '../worker/api-remaining-store';

export interface ConsoleProcessOptions {
  readonly config: ConsoleConfig;
  readonly logger: Logger;
  /** Opened by the caller (bin/console.ts, a test) and closed by it after `close()`. */
  readonly connection: RedisClient;
  /** For `${VAR}` in the routes and institutions files, as the worker reads them. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The event history; by default opened from DATABASE_URL (undefined there: live state only). */
  readonly history?: ConsoleHistory | undefined;
  /**
   * An opened history database (the demo's PGlite) read with HISTORY_KEY instead of DATABASE_URL;
   * the caller closes it after `close()`.
   */
  readonly historyDatabase?: SqlExecutor | undefined;
  /** Deliveries a replay by query queues per second at most (replayHistory's 50 by default). */
  readonly replayRatePerSecond?: number | undefined;
  /** The API budget left per institution; by default as the worker stores it in Redis. */
  readonly remainingOf?: OverviewSources['remainingOf'];
  readonly now?: () => Date;
}

export interface ConsoleProcess {
  /** The console's app; the caller listens (CONSOLE_HOST:CONSOLE_PORT). */
  readonly app: Express;
  /** Closes the queues opened here (not the connection). */
  close(): Promise<void>;
}

/**
 * The whole console process from its config and an opened Redis: the sign-in files, the routes
 * and institutions files read as the worker and listener read them, their queues, the rejected
 * store, and the app. A bad file throws here, at start-up, naming the file and field.
 */
export function createConsoleProcess(options: ConsoleProcessOptions): ConsoleProcess {
  const { config, connection } = options;
  warnOfLoopbackTrust(options);
  const sources = openSources(options);
  const history = openHistory(options, sources);
  const auth = authOf(config);
  const app = createConsoleApp({
    logger: options.logger,
    auth,
    actions: createConsoleActions(sources),
    history: history.calls,
    trustedProxies: config.CONSOLE_TRUSTED_PROXIES ?? [],
    overview: {
      queues: sources.queues,
      history: history.calls,
      remainingOf:
        options.remainingOf ??
        ((institution) => readApiRemaining(connection, config.QUEUE_NAME, institution)),
      expected: expectedOf(config, sources.queues),
      now: options.now ?? (() => new Date()),
    },
    checkReady: async () => {
      await connection.ping();
    },
    clusterNodes: () => readClusterNodeStates(connection),
  });
  return {
    app,
    close: () => {
      auth.close();
      return closeConsole(sources, history);
    },
  };
}

/** What the console reads and acts on in Redis: opened here, closed by the process's close(). */
interface ConsoleSources {
  readonly queues: ConsoleQueues;
  /** The listener's queue, where a replayed rejected delivery goes again. */
  readonly baseQueue: Queue;
  readonly replayTargets: ReplayTargets;
  readonly rejected: RejectedStore;
  /** Masks the routes file's substituted values in what the routes page and API show. */
  readonly redactSecrets: RedactSecrets;
  /** ROUTES_FILE's hash as read at start-up, compared with the workers' (routes-run-registry.ts). */
  readonly routesFileHash: string | undefined;
}

/** The console's history and what it opened itself (closed with the process). */
interface OpenedHistory {
  readonly calls: ConsoleHistory | undefined;
  /** The replays running in the background stop on close (unless the caller gave the history). */
  readonly ownsCalls: boolean;
  /** Opened from DATABASE_URL here; undefined when the caller gave the history or its database. */
  readonly db: SqlExecutor | undefined;
}

function openSources({ config, connection, env }: ConsoleProcessOptions): ConsoleSources {
  const { routes, redactSecrets } =
    config.ROUTES_FILE === undefined
      ? { routes: [], redactSecrets: redactUrlCredentials }
      : loadRoutesFile(config.ROUTES_FILE, env);
  const institutions =
    config.INSTITUTIONS_FILE === undefined
      ? undefined
      : loadInstitutionsFile(config.INSTITUTIONS_FILE, env).institutions.map((one) => one.code);
  const queues = openConsoleQueues({
    connection,
    queueName: config.QUEUE_NAME,
    institutions,
    routes,
  });
  const baseQueue = new Queue(config.QUEUE_NAME, { connection });
  baseQueue.on('error', () => undefined);
  const replayTargets = createReplayTargets({
    queue: baseQueue,
    connection,
    institutions,
    dedupWindowHours: config.DEDUP_WINDOW_HOURS,
    attempts: config.JOB_ATTEMPTS,
  });
  const rejected = createRejectedStore({
    redis: connection,
    queueName: config.QUEUE_NAME,
    maxCount: config.REJECTED_MAX_COUNT,
    maxAgeHours: config.REJECTED_MAX_AGE_HOURS,
  });
  const fileHash =
    config.ROUTES_FILE === undefined ? undefined : routesFileHash(config.ROUTES_FILE);
  return { queues, baseQueue, replayTargets, rejected, redactSecrets, routesFileHash: fileHash };
}

/** One line at start when a trusted proxy key holds a loopback address (docs/console.md#hardening). */
function warnOfLoopbackTrust({ config, logger }: ConsoleProcessOptions): void {
  const keys = (['CONSOLE_TRUSTED_PROXIES', 'CONSOLE_TRUSTED_PROXY'] as const).filter(
    (key) => trustedAddresses(config[key] ?? []).holdsLoopback,
  );
  if (keys.length === 0) return;
  logger.warn(
    { keys },
    'console trusts a loopback address: any process on this host is trusted as the proxy is',
  );
}

function authOf(config: ConsoleConfig): ConsoleAuth {
  return createConsoleAuth({
    tokens:
      config.CONSOLE_TOKENS_FILE === undefined
        ? { tokens: [] }
        : loadConsoleTokensFile(config.CONSOLE_TOKENS_FILE),
    roles:
      config.CONSOLE_ROLES_FILE === undefined
        ? undefined
        : loadConsoleRolesFile(config.CONSOLE_ROLES_FILE),
    identityProxies: config.CONSOLE_TRUSTED_PROXY ?? [],
    proxySecret: config.CONSOLE_PROXY_SECRET,
    identityHeader: config.CONSOLE_IDENTITY_HEADER,
    sessionTtlMs: config.CONSOLE_SESSION_HOURS * 3600_000,
    maxSessions: config.CONSOLE_MAX_SESSIONS,
    maxSessionsPerPrincipal: config.CONSOLE_MAX_SESSIONS_PER_PRINCIPAL,
  });
}

/** EXPECTED_EVENTS_FILE read at start-up as the worker reads it; its rules' state read per page. */
function expectedOf(config: ConsoleConfig, queues: ConsoleQueues): OverviewSources['expected'] {
  if (config.EXPECTED_EVENTS_FILE === undefined) return undefined;
  const watches = expectedWatchesOf(
    loadExpectedEventsFile(config.EXPECTED_EVENTS_FILE).expected,
    queues.events.map(({ institution, queue }) => ({ institution, queueName: queue.name })),
  );
  return () => readExpectedEvents(queues.connection, watches);
}

/** The history given by the caller, else over the database given or opened from DATABASE_URL. */
function openHistory(options: ConsoleProcessOptions, sources: ConsoleSources): OpenedHistory {
  if (options.history !== undefined)
    return { calls: options.history, ownsCalls: false, db: undefined };
  const db = options.historyDatabase === undefined ? openHistoryDb(options.config) : undefined;
  const readFrom = options.historyDatabase ?? db;
  const calls =
    readFrom === undefined
      ? undefined
      : consoleHistoryOf({
          config: options.config,
          db: readFrom,
          queues: sources.queues,
          rejected: sources.rejected,
          logger: options.logger,
          replayRatePerSecond: options.replayRatePerSecond,
        });
  return { calls, ownsCalls: true, db };
}

async function closeConsole(sources: ConsoleSources, history: OpenedHistory): Promise<void> {
  // The replays running in the background stop first (between two events).
  if (history.ownsCalls) await history.calls?.close();
  await sources.replayTargets.close();
  await sources.baseQueue.close();
  await sources.queues.close();
  await history.db?.close();
}

/**
 * The history's database when DATABASE_URL is set. Not migrated here (the worker migrates when it
 * opens the database, `history migrate` by hand) and not connected yet: a pool connects on the
 * first query, so a PostgreSQL that is down leaves the console serving live state, its overview
 * saying so and the history calls answering 503 `history_unavailable`.
 */
function openHistoryDb(config: ConsoleConfig): SqlExecutor | undefined {
  if (config.DATABASE_URL === undefined) return undefined;
  return openPgExecutor({ url: config.DATABASE_URL, schema: config.HISTORY_SCHEMA });
}

function consoleHistoryOf(deps: {
  config: ConsoleConfig;
  db: SqlExecutor;
  queues: ConsoleQueues;
  rejected: RejectedStore;
  logger: Logger;
  replayRatePerSecond: number | undefined;
}): ConsoleHistory {
  const { config, queues } = deps;
  return createConsoleHistory({
    db: deps.db,
    // historyKeyWithDatabase: HISTORY_KEY is set whenever DATABASE_URL is.
    keys: deriveHistoryKeys(config.HISTORY_KEY ?? ''),
    logger: deps.logger,
    retention: {
      days: config.HISTORY_RETENTION_DAYS,
      patronDays: config.HISTORY_PATRON_RETENTION_DAYS,
    },
    ...(deps.replayRatePerSecond === undefined
      ? {}
      : { replayRatePerSecond: deps.replayRatePerSecond }),
    runCap: { key: runsKey(config.QUEUE_NAME), max: config.REPLAY_MAX_RUNNING },
    replayTarget: (name) => {
      const found = queues.routes.find((one) => one.route.name === name);
      // Replays go to the route's own queue with its attempts (as `history replay` does).
      return found === undefined
        ? undefined
        : {
            queue: found.queue,
            jobOptions: routeJobOptions(found.route, KEEP_COMPLETED_HOURS),
            match: found.route.match,
            rule: (ignoreRouteMatch) => replayRule(found.route, ignoreRouteMatch),
          };
    },
    routeNames: () => queues.routes.map((one) => one.route.name),
    routesRunByWorkers: () => readRoutesRunNames(queues.connection, config.QUEUE_NAME),
    forgetIn: {
      redis: queues.connection,
      streamKey: historyStreamKey(config.QUEUE_NAME),
      queues: [...queues.events, ...queues.routes].map((one) => one.queue),
      rejected: deps.rejected,
    },
  });
}
