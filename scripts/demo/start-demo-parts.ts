import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createSandbox } from '@svcws/sandbox';
import type { Sandbox } from '@svcws/sandbox';
import { HistoryConfig, loadConfig, WebConfig, WorkerConfig } from '../../src/config';
import { openHistoryDatabase } from '../../src/history';
import type { SqlExecutor } from '../../src/history';
import { createLogger } from '../../src/logger';
import type { Logger } from '../../src/logger';
import { createWorkerMetrics } from '../../src/metrics/worker-metrics';
import { createListenerProcess } from '../../src/processes/listener-process';
import { createWorkerProcess } from '../../src/processes/worker-process';
import { closeRedis } from '../../src/redis/close-redis';
import { openProducerConnection } from '../../src/redis/open-producer-connection';
import { openWorkerConnection } from '../../src/redis/open-worker-connection';
import type { DemoCleanups } from './demo-cleanups';
import { createDemoNarrator } from './demo-narrator';
import type { DemoNarrator } from './demo-narrator';
import type { DemoOutput } from './demo-output';
import type { DemoRedis } from './demo-redis';
import { logTee } from './log-tee';
import { ms } from './demo-narrator';
import { removeDemoKeys } from './remove-demo-keys';

export const IMPORT_JOB = 'S7781';
export const API_KEY = 'sandbox-key';

/** The demo's knobs (environment and `--watch`), read once by scripts/demo.ts. */
export interface DemoSettings {
  readonly watch: boolean;
  readonly records: number;
  readonly jobDurationMs: number;
  readonly webhookFormat: 'json' | 'xml';
  readonly timeoutMs: number;
  readonly env: NodeJS.ProcessEnv;
}

/** Everything the demo started, for the steps that use it. */
export interface DemoParts {
  readonly redis: DemoRedis;
  readonly queueName: string;
  readonly dir: string;
  readonly logFile: string;
  readonly logger: (name: string) => Logger;
  readonly narrator: DemoNarrator;
  readonly sandbox: Sandbox;
  readonly platformUrl: string;
  readonly secret: string;
  readonly listenerBase: string;
  readonly listenerUrl: string;
  readonly routesFile: string;
  readonly historyDb: SqlExecutor;
  readonly historyKey: string;
  /** Whether the history is in the PostgreSQL at DATABASE_URL, kept for the CLI after the demo. */
  readonly historyKept: boolean;
  readonly workerMetricsPort: number;
}

type Started<K extends keyof DemoParts> = Pick<DemoParts, K>;

/**
 * Starts the parts one after another and says each as it comes up: the log file, the sandbox (the
 * platform), the listener, the history and the worker, over the demo's Redis and a fresh queue.
 */
export async function startDemoParts(
  settings: DemoSettings,
  redis: DemoRedis,
  dir: string,
  out: DemoOutput,
  cleanups: DemoCleanups,
): Promise<DemoParts> {
  const queueName = `demo-${randomUUID().slice(0, 8)}`;
  out.part('Redis', `${redis.url}  (${redis.origin}), queue ${queueName}`);
  // Runs after every part below has closed: nothing writes to these keys any more.
  cleanups.push(() => removeDemoKeys(redis.config, queueName));
  const logFile = path.join(dir, 'demo.log');
  const narrator = createDemoNarrator(out.say);
  const tee = logTee(logFile, narrator.onLine);
  cleanups.push(tee.close);
  const logger = (name: string): Logger =>
    createLogger({ level: 'info', name, destination: tee.stream });
  out.part('Logs', `${logFile}  (pino JSON lines of all the parts)`);
  const base = { redis, queueName, dir, logFile, logger, narrator };
  const platform = await startPlatform(settings, base, out, cleanups);
  const listener = await startListener(settings, { ...base, ...platform }, out, cleanups);
  const history = await openHistory(settings, out, cleanups);
  const worker = await startWorker(settings, { ...base, ...platform, ...history }, out, cleanups);
  return { ...base, ...platform, ...listener, ...history, ...worker };
}

async function startPlatform(
  settings: DemoSettings,
  parts: Started<'logger'>,
  out: DemoOutput,
  cleanups: DemoCleanups,
): Promise<Started<'sandbox' | 'platformUrl'>> {
  const sandbox = createSandbox({
    config: {
      SANDBOX_JOB_DURATION_MS: settings.jobDurationMs,
      SANDBOX_RECORD_COUNT: settings.records,
    },
    logger: parts.logger('sandbox'),
  });
  const platform = await sandbox.start(0);
  cleanups.push(platform.close);
  out.part(
    'Sandbox',
    `${platform.url}  (import job ${IMPORT_JOB}: ${String(settings.records)} records, runs ${ms(settings.jobDurationMs)})`,
  );
  return { sandbox, platformUrl: platform.url };
}

/** The listener, built by the assembly src/bin/web.ts calls, on a free loopback port. */
async function startListener(
  settings: DemoSettings,
  parts: Started<'redis' | 'queueName' | 'logger'>,
  out: DemoOutput,
  cleanups: DemoCleanups,
): Promise<Started<'secret' | 'listenerBase' | 'listenerUrl'>> {
  const secret = settings.env.WEBHOOK_SECRET ?? randomBytes(24).toString('base64url');
  const config = loadConfig(WebConfig, {
    ...parts.redis.env,
    QUEUE_NAME: parts.queueName,
    WEBHOOK_SECRET: secret,
    DEDUP_WINDOW_HOURS: '1',
    JOB_ATTEMPTS: '3',
    REJECTED_MAX_COUNT: '100',
    REJECTED_MAX_AGE_HOURS: '24',
  });
  const connection = openProducerConnection(config);
  cleanups.push(() => closeRedis(connection));
  const listener = createListenerProcess({
    config,
    logger: parts.logger('web'),
    connection,
    env: {},
  });
  cleanups.push(listener.close);
  const server: Server = listener.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => closeServer(server));
  const listenerBase = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  const listenerUrl = `${listenerBase}/webhooks`;
  out.part('Listener', `${listenerUrl}  (${settings.webhookFormat} webhooks)`);
  return { secret, listenerBase, listenerUrl };
}

/**
 * The event history (docs/history.md): in the PostgreSQL at DATABASE_URL when the environment
 * (or .env) names one with its HISTORY_KEY, so `npm run events -- history show` reads it after the
 * demo; else in PGlite, in this process: nothing to install, gone when the demo ends.
 */
async function openHistory(
  settings: DemoSettings,
  out: DemoOutput,
  cleanups: DemoCleanups,
): Promise<Started<'historyDb' | 'historyKey' | 'historyKept'>> {
  const config = loadConfig(HistoryConfig, settings.env);
  if (config.DATABASE_URL !== undefined && config.HISTORY_KEY !== undefined) {
    out.say('…', 'opening the event history at DATABASE_URL');
    const url = config.DATABASE_URL;
    const historyDb = await openHistoryDatabase({ url, schema: config.HISTORY_SCHEMA });
    if (historyDb === undefined) throw new Error('no history database');
    cleanups.push(() => historyDb.close());
    out.part('History', `PostgreSQL at DATABASE_URL, schema ${config.HISTORY_SCHEMA} (kept)`);
    return { historyDb, historyKey: config.HISTORY_KEY, historyKept: true };
  }
  out.say('…', 'opening the event history: PGlite, PostgreSQL in WebAssembly (a few seconds)');
  const historyDb = await openHistoryDatabase({ embedded: true });
  if (historyDb === undefined) throw new Error('no embedded history database');
  cleanups.push(() => historyDb.close());
  out.part('History', 'PGlite in this process (PostgreSQL in WebAssembly)');
  return { historyDb, historyKey: randomBytes(32).toString('base64url'), historyKept: false };
}

/** The worker as src/bin/worker.ts composes it, with its metrics and the demo's routes file. */
async function startWorker(
  settings: DemoSettings,
  parts: Started<
    'redis' | 'queueName' | 'dir' | 'logger' | 'platformUrl' | 'historyDb' | 'historyKey'
  >,
  out: DemoOutput,
  cleanups: DemoCleanups,
): Promise<Started<'routesFile' | 'workerMetricsPort'>> {
  const routesFile = await writeRoutesFile(parts.dir, out);
  const config = loadConfig(WorkerConfig, {
    ROUTES_FILE: routesFile,
    SVC_BASE_URL: parts.platformUrl,
    SVC_API_KEY: API_KEY,
    ...parts.redis.env,
    QUEUE_NAME: parts.queueName,
    RECORDS_DIR: path.join(parts.dir, 'records'),
    WORKER_CONCURRENCY: '2',
    DOWNLOAD_FORMAT: settings.env.DOWNLOAD_FORMAT,
    HISTORY_KEY: parts.historyKey,
  });
  const logger = parts.logger('worker');
  const metrics = createWorkerMetrics();
  const connection = openWorkerConnection(config, logger);
  cleanups.push(() => closeRedis(connection));
  const worker = createWorkerProcess({
    config,
    logger,
    connection,
    env: settings.env,
    metrics,
    historyOptions: { database: parts.historyDb },
  });
  cleanups.push(worker.close);
  const metricsServer = await metrics.listen(0, '127.0.0.1');
  cleanups.push(metricsServer.close);
  await worker.worker.waitUntilReady();
  out.part('Worker', `${config.DOWNLOAD_FORMAT} downloads into ${config.RECORDS_DIR}`);
  return { routesFile, workerMetricsPort: metricsServer.port };
}

/** Routing (docs/routing.md): the demo's own routes file sends every event to a file archive. */
async function writeRoutesFile(dir: string, out: DemoOutput): Promise<string> {
  const routesFile = path.join(dir, 'routes.yaml');
  const archiveDir = path.join(dir, 'archive');
  await writeFile(
    routesFile,
    `routes:\n  - name: archive\n    to: { file: { dir: "${archiveDir}" } }\n`,
  );
  out.part('Routes', `${routesFile}: every event → ${archiveDir} (JSON lines per day)`);
  return routesFile;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
