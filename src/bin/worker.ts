// First: with tracing on, its instrumentations must hook http, express and ioredis before they load.
import { tracing } from './worker-tracing';
import { loadConfig, WorkerConfig } from '../config';
import { createLogger } from '../logger';
import { createWorkerMetrics } from '../metrics/worker-metrics';
import { createWorkerProcess } from '../processes/worker-process';
import { runUntilSignal } from '../process/run-until-signal';
import { closeRedis } from '../redis/close-redis';
import { openWorkerConnection } from '../redis/open-worker-connection';

/**
 * Composition root of the worker (`npm run worker`): reads env, opens Redis, builds the process
 * (src/processes/worker-process.ts), serves its metrics, and on SIGTERM/SIGINT closes it — jobs in flight finish — within SHUTDOWN_TIMEOUT_MS.
 * Past the deadline the jobs still running are cancelled and the process exits 1; their locks
 * expire and another worker takes them again (stalled-job recovery), so no event is lost either way.
 */
async function main(): Promise<void> {
  const config = loadConfig(WorkerConfig, process.env);
  const logger = createLogger({
    level: config.LOG_LEVEL,
    name: 'worker',
    mixin: tracing.logFields,
  });
  const metrics = createWorkerMetrics({ token: config.METRICS_TOKEN });
  const connection = openWorkerConnection(config, logger);
  const running = createWorkerProcess({
    config,
    logger,
    connection,
    env: process.env,
    metrics,
    telemetry: tracing.telemetry,
  });
  const metricsServer = await metrics.listen(
    config.WORKER_METRICS_PORT,
    config.WORKER_METRICS_HOST,
  );
  await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));
  logger.info(
    {
      queues: running.workers.map((worker) => worker.name),
      concurrency: config.WORKER_CONCURRENCY,
      recordsDir: config.RECORDS_DIR,
      format: config.DOWNLOAD_FORMAT,
      lineTypes: config.DOWNLOAD_LINE_TYPES,
      metricsPort: metricsServer.port,
      routesFile: config.ROUTES_FILE,
      institutionsFile: config.INSTITUTIONS_FILE,
      tracing: tracing.enabled,
    },
    'worker ready',
  );

  runUntilSignal({
    logger,
    stoppingMessage: 'shutting down: no new jobs, finishing jobs in flight',
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    deadlineMessage:
      'shutdown deadline passed: cancelling jobs in flight (another worker will take them)',
    onDeadline: () => {
      for (const worker of running.workers) worker.cancelAllJobs('shutdown deadline');
    },
    steps: [
      { name: 'worker', close: running.close },
      { name: 'redis', close: () => closeRedis(connection) },
      { name: 'metrics', close: () => metricsServer.close() },
      // Last: the spans of the jobs finished above are flushed to the collector.
      { name: 'tracing', close: tracing.shutdown, mayFail: true },
    ],
  });
}

main().catch((error: unknown) => {
  // Config errors name keys only; nothing secret is in them.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
