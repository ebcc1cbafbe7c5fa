import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { loadConfig, WebConfig } from '../config';
import { createLogger } from '../logger';
import { createApp } from '../http/create-app';
import { createEventQueue } from '../events/create-event-queue';
import { createEventEnqueuer } from '../events/enqueue-event';
import { createWebMetrics } from '../metrics/web-metrics';
import { createAdminDashboard } from '../http/admin-dashboard';
import { configureServer } from '../http/configure-server';
import { createRejectedStore } from '../events/rejected-store';

/** Composition root of the listener: reads env, opens Redis, listens, handles signals. */
async function main(): Promise<void> {
  const config = loadConfig(WebConfig, process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'web' });
  const events = createEventQueue({ redisUrl: config.REDIS_URL, queueName: config.QUEUE_NAME });
  events.connection.on('error', (error: Error) =>
    logger.warn({ err: error.message }, 'redis connection error'),
  );

  const metrics = createWebMetrics({ queue: events.queue, token: config.METRICS_TOKEN });
  const app = createApp({
    config,
    logger,
    enqueue: metrics.timeEnqueue(
      createEventEnqueuer({
        queue: events.queue,
        dedupWindowHours: config.DEDUP_WINDOW_HOURS,
        attempts: config.JOB_ATTEMPTS,
      }),
    ),
    rejected: createRejectedStore({
      redis: events.connection,
      queueName: config.QUEUE_NAME,
      maxCount: config.REJECTED_MAX_COUNT,
      maxAgeHours: config.REJECTED_MAX_AGE_HOURS,
    }),
    checkReady: events.ping,
    observer: metrics.observer,
    extraRoutes: [
      metrics.router,
      // No routes at all unless ADMIN_TOKEN is set.
      createAdminDashboard({ queues: [events.queue], token: config.ADMIN_TOKEN }),
    ],
  });

  const server = configureServer(app.listen(config.PORT), config);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  logger.info(
    {
      port,
      path: config.WEBHOOK_PATH,
      queue: config.QUEUE_NAME,
      metrics: '/metrics',
      dashboard: config.ADMIN_TOKEN === undefined ? 'off' : '/admin/queues',
    },
    'listener ready',
  );

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    const deadline = setTimeout(() => {
      logger.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    server.close(() => {
      events
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, 'queue close failed'))
        .finally(() => {
          logger.info('stopped');
          process.exit(0);
        });
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  // Config errors name keys only; nothing secret is in them.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
