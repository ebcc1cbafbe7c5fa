import type { Telemetry } from 'bullmq';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { WebConfig } from '../config';
import { createEventQueue } from '../events/create-event-queue';
import type { EventQueue } from '../events/create-event-queue';
import { createEventEnqueuer } from '../events/enqueue-event';
import { enqueueInSpan } from '../events/enqueue-in-span';
import type { EnqueueEvent } from '../events/enqueue-event';
import { createRejectedStore } from '../events/rejected-store';
import type { RejectedStore } from '../events/rejected-store';
import { createApp } from '../http/create-app';
import type { AppInstitution } from '../http/create-app';
import { institutionQueueName } from '../institutions/institution-queue-name';
import type { InstitutionEntry } from '../institutions/institutions-file';
import { loadInstitutionsFile } from '../institutions/load-institutions-file';
import type { Logger } from '../logger';
import { createWebMetrics } from '../metrics/web-metrics';
import type { WebMetrics } from '../metrics/web-metrics';
import type { MetricsServer } from '../metrics/serve-metrics';
import { enqueueBoundMs } from './enqueue-bound-ms';

export interface ListenerProcessOptions {
  readonly config: WebConfig;
  readonly logger: Logger;
  /** The listener's Redis connection (openProducerConnection), opened and closed by the caller. */
  readonly connection: Redis;
  /** For `${VAR}` in INSTITUTIONS_FILE (bin/ passes the process environment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** BullMQ's telemetry when tracing is on (src/tracing/start-tracing.ts); nothing is traced without. */
  readonly telemetry?: Telemetry | undefined;
}

export interface ListenerProcess {
  /** The Express app: the webhook path, health and metrics. It never listens itself (bin/ does). */
  readonly app: Express;
  /** INSTITUTIONS_FILE's members, in the order of `queues`; undefined for one institution. */
  readonly members: readonly InstitutionEntry[] | undefined;
  /** One event queue, or one per institution (institution-queue-name.ts). */
  readonly queues: readonly EventQueue[];
  /** Where signed deliveries that cannot become an event are kept. */
  readonly rejected: RejectedStore;
  readonly metrics: WebMetrics;
  /** With METRICS_PORT: starts the metrics' own server (on METRICS_HOST) and gives its port. */
  listenMetrics(): Promise<number | undefined>;
  /** Closes the metrics' own server and the queue handles (not the connection). */
  close(): Promise<void>;
}

/**
 * The listener process from its configuration and opened connection: the event queues, each
 * enqueue timed for the metrics and bounded (with REDIS_ACK_REPLICAS, confirmed by replicas), the
 * rejected store and the app with its metrics route. bin/web.ts listens and handles signals.
 */
export function createListenerProcess(options: ListenerProcessOptions): ListenerProcess {
  const { config, logger, connection } = options;
  const { members, queues } = openEventQueues(options);
  const [events] = queues;
  if (events === undefined) throw new Error('no event queue');
  const metrics = createWebMetrics({
    queue: queues.map((one) => one.queue),
    token: config.METRICS_TOKEN,
  });
  const enqueueOf = (eventQueue: EventQueue, institution?: string): EnqueueEvent => {
    const enqueue = metrics.timeEnqueue(
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
    // Off, nothing is wrapped: the ingress path is exactly as without tracing.
    return options.telemetry === undefined ? enqueue : enqueueInSpan(enqueue, institution);
  };
  const institutions: AppInstitution[] | undefined = members?.map((member, index) => ({
    code: member.code,
    webhookSecret: member.webhookSecret,
    webhookSecretPrevious: member.webhookSecretPrevious,
    enqueue: enqueueOf(queues[index] ?? events, member.code),
  }));
  let metricsServer: MetricsServer | undefined;
  const rejected = createRejectedStore({
    redis: connection,
    queueName: config.QUEUE_NAME,
    maxCount: config.REJECTED_MAX_COUNT,
    maxAgeHours: config.REJECTED_MAX_AGE_HOURS,
  });
  const app = createApp({
    config,
    logger,
    enqueueTimeoutMs: enqueueBoundMs(config),
    ...(institutions === undefined ? { enqueue: enqueueOf(events) } : { institutions }),
    rejected,
    checkReady: events.ping,
    observer: metrics.observer,
    // With METRICS_PORT the metrics have a server of their own (bin/web.ts), not the webhooks' port.
    extraRoutes: config.METRICS_PORT === undefined ? [metrics.router] : [],
  });
  return {
    app,
    members,
    queues,
    rejected,
    metrics,
    listenMetrics: async () => {
      if (config.METRICS_PORT === undefined) return undefined;
      metricsServer = await metrics.listen(config.METRICS_PORT, config.METRICS_HOST);
      return metricsServer.port;
    },
    close: async () => {
      await metricsServer?.close();
      await Promise.all(queues.map((one) => one.close()));
    },
  };
}

/**
 * One event queue, or with INSTITUTIONS_FILE one per institution (institution-queue-name.ts); the
 * file is read at start-up, so a bad one stops the start naming the institution and the field.
 */
function openEventQueues({ config, connection, env, telemetry }: ListenerProcessOptions): {
  members: readonly InstitutionEntry[] | undefined;
  queues: readonly EventQueue[];
} {
  const members =
    config.INSTITUTIONS_FILE === undefined
      ? undefined
      : loadInstitutionsFile(config.INSTITUTIONS_FILE, env).institutions;
  const queueNames = members?.map((member) =>
    institutionQueueName(config.QUEUE_NAME, member.code),
  ) ?? [config.QUEUE_NAME];
  return {
    members,
    queues: queueNames.map((queueName) => createEventQueue({ connection, queueName, telemetry })),
  };
}
