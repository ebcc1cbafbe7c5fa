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
import type { EventQueue } from '../events/create-event-queue';
import type { EnqueueEvent } from '../events/enqueue-event';
import type { AppInstitution } from '../http/create-app';
import { loadInstitutionsFile } from '../institutions/load-institutions-file';
import { institutionQueueName } from '../institutions/institution-queue-name';

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
  // INSTITUTIONS_FILE: one queue per institution (institution-queue-name.ts); read at start-up,
  // so a bad file stops the start naming the institution and the field.
  const members =
    config.INSTITUTIONS_FILE === undefined
      ? undefined
      : loadInstitutionsFile(config.INSTITUTIONS_FILE, process.env).institutions;
  const queueNames = members?.map((member) =>
    institutionQueueName(config.QUEUE_NAME, member.code),
  ) ?? [config.QUEUE_NAME];
  const queues: EventQueue[] = queueNames.map((queueName) =>
    createEventQueue({ connection, queueName }),
  );
  const [events] = queues;
  if (events === undefined) throw new Error('no event queue');

  const metrics = createWebMetrics({
    queue: queues.map((one) => one.queue),
    token: config.METRICS_TOKEN,
  });
  const enqueueOf = (eventQueue: EventQueue): EnqueueEvent =>
    metrics.timeEnqueue(
      createEventEnqueuer({
        queue: eventQueue.queue,
        dedupWindowHours: config.DEDUP_WINDOW_HOURS,
        attempts: config.JOB_ATTEMPTS,
        ackReplicas: {
          replicas: config.REDIS_ACK_REPLICAS,
          timeoutMs: config.REDIS_ACK_TIMEOUT_MS,
        },
      }),
    );
  const institutions: AppInstitution[] | undefined = members?.map((member, index) => ({
    code: member.code,
    webhookSecret: member.webhookSecret,
    webhookSecretPrevious: member.webhookSecretPrevious,
    enqueue: enqueueOf(queues[index] ?? events),
  }));
  const app = createApp({
    config,
    logger,
    enqueueTimeoutMs: 1000 + ackWaitMs,
    ...(institutions === undefined ? { enqueue: enqueueOf(events) } : { institutions }),
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
      createAdminDashboard({ queues: queues.map((one) => one.queue), token: config.ADMIN_TOKEN }),
    ],
  });

  const server = configureServer(app.listen(config.PORT), config);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  logger.info(
    {
      port,
      redis: config.REDIS_SENTINELS === undefined ? 'REDIS_URL' : 'sentinel',
      ackReplicas: config.REDIS_ACK_REPLICAS,
      path: institutions === undefined ? config.WEBHOOK_PATH : `${config.WEBHOOK_PATH}/{code}`,
      institutions: institutions?.map((institution) => institution.code),
      queues: queueNames,
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
      {
        name: 'queue',
        close: async () => {
          await Promise.all(queues.map((one) => one.close()));
        },
        mayFail: true,
      },
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
