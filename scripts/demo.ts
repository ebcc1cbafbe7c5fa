import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, stat, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { loadConfig, WebConfig, WorkerConfig } from '../src/config';
import { closeRedis } from '../src/redis/close-redis';
import { openProducerConnection } from '../src/redis/open-producer-connection';
import { openWorkerConnection } from '../src/redis/open-worker-connection';
import { createLogger } from '../src/logger';
import { createWorkerMetrics } from '../src/metrics/worker-metrics';
import { createSandbox } from '@svcws/sandbox';
import { routeQueueName } from '../src/routes/route-queue-name';
import { createSvcClient } from '@svcws/client';
import { createListenerProcess } from '../src/processes/listener-process';
import { createWorkerProcess } from '../src/processes/worker-process';
import { deriveHistoryKeys, openHistoryDatabase } from '../src/history';
import { startDemoConsole } from './demo/demo-console';
import { demoJourney } from './demo/demo-journey';
import { demoRedis, NoRedisError } from './demo/demo-redis';
import { createDemoNarrator, kb, ms } from './demo/demo-narrator';
import { logTee } from './demo/log-tee';

/**
 * `npm run demo [-- --watch]`: the whole path on one machine, in one process — the sandbox (the
 * platform), the listener and the worker — with a private Redis when none answers; `--watch`
 * keeps them running and adds the operator console with a token valid for this run only. Knobs (env):
 * DEMO_RECORDS (25), DEMO_JOB_DURATION_MS (2000), DEMO_WEBHOOK_FORMAT (json|xml), DEMO_TIMEOUT_MS
 * (60000), DOWNLOAD_FORMAT (XML|BINARY), WEBHOOK_SECRET (random unless given; never printed).
 */
const IMPORT_JOB = 'S7781';
const API_KEY = 'sandbox-key';

type Cleanup = () => Promise<void>;

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { watch: { type: 'boolean' } }, strict: true });
  const watch = values.watch === true;
  const env = process.env;
  const records = intOf(env.DEMO_RECORDS, 25);
  const jobDurationMs = intOf(env.DEMO_JOB_DURATION_MS, 2000);
  const webhookFormat = env.DEMO_WEBHOOK_FORMAT === 'xml' ? 'xml' : 'json';
  const timeoutMs = intOf(env.DEMO_TIMEOUT_MS, 60_000);

  const started = performance.now();
  const print = (line = ''): void => {
    process.stdout.write(`${line}\n`);
  };
  const say = (mark: string, text: string): void => {
    const at = `+${((performance.now() - started) / 1000).toFixed(2)} s`;
    print(`${at.padStart(9)}  ${mark} ${text}`);
  };
  const cleanups: Cleanup[] = [];
  const cleanUp = async (): Promise<void> => {
    for (const step of cleanups.reverse()) {
      await step().catch((error: unknown) => {
        print(`  (cleanup: ${error instanceof Error ? error.message : String(error)})`);
      });
    }
    cleanups.length = 0;
  };
  let interrupted: (() => void) | undefined;
  const interruption = new Promise<'interrupted'>((resolve) => {
    interrupted = () => resolve('interrupted');
  });
  process.once('SIGINT', () => interrupted?.());
  process.once('SIGTERM', () => interrupted?.());

  print('svcws demo: the platform (sandbox) → webhook → listener → queue → worker → records');
  print();
  let redis;
  try {
    redis = await demoRedis(env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  } catch (error) {
    if (!(error instanceof NoRedisError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  cleanups.push(redis.stop);
  let tempDir: string | undefined;
  try {
    const dir = await mkdtemp(path.join(tmpdir(), 'svcws-demo-'));
    tempDir = dir;
    const logFile = path.join(dir, 'demo.log');
    const recordsDir = path.join(dir, 'records');
    const narrator = createDemoNarrator(say);
    const tee = logTee(logFile, narrator.onLine);
    cleanups.push(tee.close);
    const logger = (name: string) => createLogger({ level: 'info', name, destination: tee.stream });

    const queueName = `demo-${randomUUID().slice(0, 8)}`;

    // The platform.
    const sandbox = createSandbox({
      config: { SANDBOX_JOB_DURATION_MS: jobDurationMs, SANDBOX_RECORD_COUNT: records },
      logger: logger('sandbox'),
    });
    const platform = await sandbox.start(0);
    cleanups.push(platform.close);

    // The listener, built by the assembly src/bin/web.ts calls.
    const secret = env.WEBHOOK_SECRET ?? randomBytes(24).toString('base64url');
    const webConfig = loadConfig(WebConfig, {
      REDIS_URL: redis.url,
      QUEUE_NAME: queueName,
      WEBHOOK_SECRET: secret,
      DEDUP_WINDOW_HOURS: '1',
      JOB_ATTEMPTS: '3',
      REJECTED_MAX_COUNT: '100',
      REJECTED_MAX_AGE_HOURS: '24',
    });
    const webConnection = openProducerConnection(redis.url);
    cleanups.push(() => closeRedis(webConnection));
    const listener = createListenerProcess({
      config: webConfig,
      logger: logger('web'),
      connection: webConnection,
      env: {},
    });
    cleanups.push(listener.close);
    cleanups.push(async () => {
      for (const one of listener.queues) await one.queue.obliterate({ force: true });
    });
    const { app } = listener;
    const server: Server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => closeServer(server));
    const listenerBase = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    const listenerUrl = `${listenerBase}/webhooks`;

    // The worker (as src/bin/worker.ts composes it), with its metrics.
    const workerLogger = logger('worker');
    // Routing (docs/routing.md): the demo's own routes file sends every event to a file archive.
    const routesFile = path.join(dir, 'routes.yaml');
    const archiveDir = path.join(dir, 'archive');
    await writeFile(
      routesFile,
      `routes:\n  - name: archive\n    to: { file: { dir: "${archiveDir}" } }\n`,
    );
    cleanups.push(async () => {
      const routeQueue = new Queue(routeQueueName(queueName, 'archive'), {
        connection: { url: redis.url },
      });
      await routeQueue.obliterate({ force: true });
      await routeQueue.close();
    });
    // The event history (docs/history.md) in PGlite, in this process: nothing to install.
    const historyKey = randomBytes(32).toString('base64url');
    const historyDb = await openHistoryDatabase({ embedded: true });
    if (historyDb === undefined) throw new Error('no embedded history database');
    cleanups.push(() => historyDb.close());
    const config = loadConfig(WorkerConfig, {
      ROUTES_FILE: routesFile,
      SVC_BASE_URL: platform.url,
      SVC_API_KEY: API_KEY,
      REDIS_URL: redis.url,
      QUEUE_NAME: queueName,
      RECORDS_DIR: recordsDir,
      WORKER_CONCURRENCY: '2',
      DOWNLOAD_FORMAT: env.DOWNLOAD_FORMAT,
      HISTORY_KEY: historyKey,
    });
    const workerMetrics = createWorkerMetrics();
    const workerConnection = openWorkerConnection(config.REDIS_URL, workerLogger);
    cleanups.push(() => closeRedis(workerConnection));
    const worker = createWorkerProcess({
      config,
      logger: workerLogger,
      connection: workerConnection,
      env,
      metrics: workerMetrics,
      historyOptions: { database: historyDb },
    });
    cleanups.push(worker.close);
    const metricsServer = await workerMetrics.listen(0, '127.0.0.1');
    cleanups.push(metricsServer.close);
    await worker.worker.waitUntilReady();

    const line = (name: string, value: string): void => print(`  ${name.padEnd(10)}${value}`);
    line('Redis', `${redis.url}  (${redis.origin}), queue ${queueName}`);
    line(
      'Sandbox',
      `${platform.url}  (import job ${IMPORT_JOB}: ${String(records)} records, runs ${ms(jobDurationMs)})`,
    );
    line('Listener', `${listenerUrl}  (${webhookFormat} webhooks)`);
    line('Worker', `${config.DOWNLOAD_FORMAT} downloads into ${recordsDir}`);
    line('Routes', `${routesFile}: every event → ${archiveDir} (JSON lines per day)`);
    line('History', 'PGlite in this process (PostgreSQL in WebAssembly)');
    line('Logs', `${logFile}  (pino JSON lines of all three)`);
    print();

    // Register the listener: the sandbox sends the challenge (spec §6.1).
    const registered = await sandbox.webhooks.register({
      url: listenerUrl,
      secret,
      format: webhookFormat,
      events: ['job_end'],
    });
    if (!registered.ok) {
      say('✗', `the sandbox refused to register the listener: ${registered.reason}`);
      return 1;
    }
    say(
      '✓',
      `listener registered with the platform: it echoed the challenge (${registered.profile.id})`,
    );

    // Run the import job through the API client, as an institution's script would.
    const institution = createSvcClient({ baseUrl: platform.url, apiKey: API_KEY });
    const job = await institution.request('GET /conf/jobs/{job_id}', {
      path: { job_id: IMPORT_JOB },
    });
    const answer = await institution.request('POST /conf/jobs/{job_id}', {
      path: { job_id: IMPORT_JOB },
      query: { op: 'run' },
      body: job,
    });
    const instanceId = instanceIdOf(answer);
    if (instanceId === undefined) {
      say('✗', 'the platform did not name the new job instance');
      return 1;
    }
    say('✓', `import job ${IMPORT_JOB} started through the API: instance ${instanceId}`);
    say(
      '…',
      `the job runs in the sandbox (${ms(jobDurationMs)}); its end sends the job_end webhook`,
    );

    const outcome = await Promise.race([
      narrator.storedFor(instanceId),
      interruption,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref()),
    ]);
    if (outcome === 'interrupted') return 130;
    if (outcome === 'timeout') {
      say('✗', `no records stored within ${ms(timeoutMs)}; see ${logFile}`);
      return 1;
    }
    const onDisk = await stat(outcome.file);
    say(
      onDisk.size === outcome.bytes ? '✓' : '✗',
      `file complete on disk: ${kb(onDisk.size)} (written to a temporary name, then renamed)`,
    );
    const routed = await Promise.race([
      narrator.routedFor(outcome.eventId),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5000).unref()),
    ]);
    if (routed === undefined) {
      say('✗', `event ${outcome.eventId} not routed to the archive within 5 s; see ${logFile}`);
      return 1;
    }
    const journey = await demoJourney(
      { db: historyDb, keys: deriveHistoryKeys(historyKey) },
      outcome.eventId,
      ['archive'],
      5000,
    );
    if (journey === undefined) {
      say('✗', `the history of event ${outcome.eventId} is not complete within 5 s`);
      return 1;
    }
    print();
    print(`History of event ${outcome.eventId} (npm run events -- history show):`);
    for (const step of journey) print(`  ${step}`);
    print();
    print(
      `Summary: event ${outcome.eventId} → job ${outcome.jobId} "${outcome.jobName}", instance ${outcome.instanceId} ${outcome.status}:`,
    );
    print(
      `         ${String(outcome.records)} records (${kb(outcome.bytes)}) stored by the worker in ${ms(outcome.durationMs)} with ${String(outcome.apiCalls)} API calls.`,
    );

    if (watch) {
      // The console only when watching: the plain demo stays as quick as it was.
      const operatorConsole = await startDemoConsole({
        redisUrl: redis.url,
        queueName,
        routesFile,
        historyDb,
        historyKey,
        dir,
        logger: logger('console'),
      });
      cleanups.push(operatorConsole.close);
      print();
      print(`Console: ${operatorConsole.signInUrl}`);
      print(`  operator token for this run only (paste it in the form): ${operatorConsole.token}`);
      print();
      print('Watching (Ctrl-C stops everything). Try:');
      print(
        `  curl -s -XPOST ${platform.url}/sandbox/jobs/${IMPORT_JOB}/run -H 'content-type: application/json' -d '{}'`,
      );
      print(`  curl -s ${listenerBase}/metrics | grep svcws_     # listener metrics`);
      print(
        `  curl -s http://127.0.0.1:${String(metricsServer.port)}/metrics | grep svcws_     # worker metrics`,
      );
      print(`  REDIS_URL=${redis.url} QUEUE_NAME=${queueName} npm run events -- failed`);
      if (env.WEBHOOK_SECRET !== undefined) {
        print(
          `  npm run events -- send-test-event --url ${listenerUrl} --sample loan   # WEBHOOK_SECRET from env`,
        );
      }
      print();
      await interruption;
      print();
      print('Stopping…');
    }
    return 0;
  } finally {
    await cleanUp();
    print();
    print(
      `Done in ${ms(performance.now() - started)}. Queue keys removed from Redis` +
        (tempDir === undefined ? '.' : `; logs, records and the archive stay in ${tempDir}.`),
    );
  }
}

function instanceIdOf(answer: unknown): string | undefined {
  const info = (answer as { additional_info?: { link?: unknown } } | undefined)?.additional_info;
  const link = typeof info?.link === 'string' ? info.link : '';
  return /\/instances\/(\d+)$/.exec(link)?.[1];
}

function intOf(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new Error(`expected a whole number, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `demo failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
