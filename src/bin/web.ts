import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, WebConfig } from '../config';
import { createLogger } from '../logger';
import type { Logger } from '../logger';
import { createApp } from '../http/create-app';
import { createEventQueue } from '../events/create-event-queue';
import { createEventEnqueuer } from '../events/enqueue-event';
import { createWebMetrics } from '../metrics/web-metrics';
import type { WebMetrics } from '../metrics/web-metrics';
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
import type { InstitutionEntry } from '../institutions/institutions-file';
import type { Redis } from 'ioredis';

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
  const listener = openEventQueues(config, connection);
  const metrics = createWebMetrics({
    queue: listener.queues.map((one) => one.queue),
    token: config.METRICS_TOKEN,
  });
  const app = buildApp({ config, logger, connection, listener, metrics, ackWaitMs });

  const server = configureServer(app.listen(config.PORT), config);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  logger.info(
    {
      port,
      redis: config.REDIS_SENTINELS === undefined ? 'REDIS_URL' : 'sentinel',
      ackReplicas: config.REDIS_ACK_REPLICAS,
      path: listener.members === undefined ? config.WEBHOOK_PATH : `${config.WEBHOOK_PATH}/{code}`,
      institutions: listener.members?.map((member) => member.code),
      queues: listener.queues.map((one) => one.queue.name),
      metrics: '/metrics',
      dashboard: config.ADMIN_TOKEN === undefined ? 'off' : '/admin/queues',
    },
    'listener ready',
  );
  stopOnSignal({ config, logger, server, connection, queues: listener.queues });
}

interface ListenerQueues {
  /** INSTITUTIONS_FILE's members, in the order of `queues`; undefined for one institution. */
  readonly members: readonly InstitutionEntry[] | undefined;
  readonly queues: readonly EventQueue[];
}

/**
 * One event queue, or with INSTITUTIONS_FILE one per institution (institution-queue-name.ts); the
 * file is read at start-up, so a bad one stops the start naming the institution and the field.
 */
function openEventQueues(config: WebConfig, connection: Redis): ListenerQueues {
  const members =
    config.INSTITUTIONS_FILE === undefined
      ? undefined
      : loadInstitutionsFile(config.INSTITUTIONS_FILE, process.env).institutions;
  const queueNames = members?.map((member) =>
    institutionQueueName(config.QUEUE_NAME, member.code),
  ) ?? [config.QUEUE_NAME];
  return {
    members,
    queues: queueNames.map((queueName) => createEventQueue({ connection, queueName })),
  };
}

interface BuildAppOptions {
  readonly config: WebConfig;
  readonly logger: Logger;
  readonly connection: Redis;
  readonly listener: ListenerQueues;
  readonly metrics: WebMetrics;
  readonly ackWaitMs: number;
}

/** The Express app with its enqueue per queue, the rejected store, metrics and dashboard. */
function buildApp({ config, logger, connection, listener, metrics, ackWaitMs }: BuildAppOptions) {
  const [events] = listener.queues;
  if (events === undefined) throw new Error('no event queue');
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
  const institutions: AppInstitution[] | undefined = listener.members?.map((member, index) => ({
    code: member.code,
    webhookSecret: member.webhookSecret,
    webhookSecretPrevious: member.webhookSecretPrevious,
    enqueue: enqueueOf(listener.queues[index] ?? events),
  }));
  return createApp({
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
      createAdminDashboard({
        queues: listener.queues.map((one) => one.queue),
        token: config.ADMIN_TOKEN,
      }),
    ],
  });
}

/** SIGTERM/SIGINT: finish requests in flight, then close the queues and Redis. */
function stopOnSignal(options: {
  config: WebConfig;
  logger: Logger;
  server: Server;
  connection: Redis;
  queues: readonly EventQueue[];
}): void {
  const { config, logger, server, connection, queues } = options;
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
