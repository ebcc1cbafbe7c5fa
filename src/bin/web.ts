import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, WebConfig } from '../config';
import { createLogger } from '../logger';
import { createApp } from '../http/create-app';
import { createEventQueue } from '../events/create-event-queue';
import { createEventEnqueuer } from '../events/enqueue-event';
import { createWebMetrics } from '../metrics/web-metrics';
import { createAdminDashboard } from '../http/admin-dashboard';
import { runUntilSignal } from '../process/run-until-signal';
import { closeRedis } from '../redis/close-redis';
import { openProducerConnection } from '../redis/open-producer-connection';
import { configureServer } from '../http/configure-server';
import { createRejectedStore } from '../events/rejected-store';

/** Composition root of the listener: reads env, opens Redis, listens, handles signals. */
async function main(): Promise<void> {
  const config = loadConfig(WebConfig, process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'web', buffered: true });
  // With REDIS_ACK_REPLICAS a delivery also waits up to REDIS_ACK_TIMEOUT_MS for WAIT; the bounds
  // on the connection's commands and on the whole enqueue grow by that much (still < the 5 s the
  // sender waits).
  const ackWaitMs = config.REDIS_ACK_REPLICAS > 0 ? config.REDIS_ACK_TIMEOUT_MS : 0;
  const connection = openProducerConnection(config, { commandTimeoutMs: 1000 + ackWaitMs });
  connection.on('error', (error: Error) =>
    logger.warn({ err: error.message }, 'redis connection error'),
  );
  const events = createEventQueue({ connection, queueName: config.QUEUE_NAME });

  const metrics = createWebMetrics({ queue: events.queue, token: config.METRICS_TOKEN });
  const app = createApp({
    config,
    logger,
    enqueue: metrics.timeEnqueue(
      createEventEnqueuer({
        queue: events.queue,
        dedupWindowHours: config.DEDUP_WINDOW_HOURS,
        attempts: config.JOB_ATTEMPTS,
        ackReplicas: {
          replicas: config.REDIS_ACK_REPLICAS,
          timeoutMs: config.REDIS_ACK_TIMEOUT_MS,
        },
      }),
    ),
    enqueueTimeoutMs: 1000 + ackWaitMs,
    rejected: createRejectedStore({
      redis: connection,
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
      redis: config.REDIS_SENTINELS === undefined ? 'REDIS_URL' : 'sentinel',
      ackReplicas: config.REDIS_ACK_REPLICAS,
      metrics: '/metrics',
      dashboard: config.ADMIN_TOKEN === undefined ? 'off' : '/admin/queues',
    },
    'listener ready',
  );

  runUntilSignal({
    logger,
    stoppingMessage: 'shutting down: no new connections, finishing requests in flight',
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    deadlineMessage: 'shutdown deadline passed; exiting',
    steps: [
      { name: 'server', close: () => closeServer(server) },
      // Requests are answered by now: a queue that cannot close loses nothing.
      { name: 'queue', close: events.close, mayFail: true },
      { name: 'redis', close: () => closeRedis(connection), mayFail: true },
    ],
  });
}

/** Stops accepting connections, lets requests in flight finish, and drops idle keep-alives. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

main().catch((error: unknown) => {
  // Config errors name keys only; nothing secret is in them.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
