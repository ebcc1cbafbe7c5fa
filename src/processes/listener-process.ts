import type { Telemetry } from 'bullmq';
import type { Express } from 'express';
import type { RedisClient } from '../redis/redis-client';
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
import { readClusterNodeStates } from '../redis/cluster-node-states';
import { registerQueueNodes } from '../metrics/queue-nodes';
import type { InstitutionEntry } from '../institutions/institutions-file';
import { loadInstitutionsFile } from '../institutions/load-institutions-file';
import type { Logger } from '../logger';
import { createWebMetrics } from '../metrics/web-metrics';
import type { WebMetrics } from '../metrics/web-metrics';
import type { MetricsServer } from '../metrics/serve-metrics';
import { enqueueBoundMs } from '../events/enqueue-bound-ms';
import { openListenerSpool } from '../events/spool/open-listener-spool';
import type { ListenerSpool } from '../events/spool/open-listener-spool';
import type { Spool } from '../events/spool/create-spool';
import type { SpoolFileWrite } from '../events/spool/spool-writer';

/**
 * What a spool write may take beyond the enqueue bound: a group commit is milliseconds, but a
 * loaded event loop can fire both timers together, and the enqueue's must come first.
 */
const SPOOL_WRITE_MS = 2000;

export interface ListenerProcessOptions {
  readonly config: WebConfig;
  readonly logger: Logger;
  /** The listener's Redis connection (openProducerConnection), opened and closed by the caller. */
  readonly connection: RedisClient;
  /** For `${VAR}` in INSTITUTIONS_FILE (bin/ passes the process environment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** BullMQ's telemetry when tracing is on (src/tracing/start-tracing.ts); nothing is traced without. */
  readonly telemetry?: Telemetry | undefined;
  /**
   * How long one enqueue may take before the delivery is answered 503 (or spooled); default
   * enqueueBoundMs(config). Tests that check answers, not the bound, pass a longer one: a CPU-starved
   * event loop can miss 1 s with Redis answering.
   */
  readonly enqueueBoundMs?: number | undefined;
  /** The spool's write to its files (src/events/spool/spool-writer.ts); FileHandle.write unless given. */
  readonly spoolWrite?: SpoolFileWrite | undefined;
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
  /** The disk spool (SPOOL_DIR), when there is one. */
  readonly spool: Spool | undefined;
  /**
   * Moves what the spool holds into the queue, if Redis answers: bin/web.ts awaits it before it
   * listens. Resolves (never rejects) once done or once Redis did not answer; the drainer tries
   * again by itself.
   */
  drainSpool(): Promise<void>;
  /** Closes the metrics' own server, the queue handles (not the connection) and the spool. */
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
  const rejectedStore = createRejectedStore({
    redis: connection,
    queueName: config.QUEUE_NAME,
    maxCount: config.REJECTED_MAX_COUNT,
    maxAgeHours: config.REJECTED_MAX_AGE_HOURS,
  });
  const spooling = spoolOf(options, queues, rejectedStore);
  const metrics = createWebMetrics({
    queue: queues.map((one) => one.queue),
    token: config.METRICS_TOKEN,
    spool: spooling?.spool,
  });
  registerQueueNodes(metrics.registry, connection, () => queues.map((one) => one.queue.name));
  const enqueueOf = enqueuerOf(options, metrics, spooling);
  const institutions: AppInstitution[] | undefined = members?.map((member, index) => ({
    code: member.code,
    webhookSecret: member.webhookSecret,
    webhookSecretPrevious: member.webhookSecretPrevious,
    enqueue: enqueueOf(queues[index] ?? events, member.code),
  }));
  const metricsServer = metricsServerOf(config, metrics);
  const rejected = spooling?.rejected ?? rejectedStore;
  const app = createApp({
    config,
    logger,
    // With a spool, the enqueue's own bound sends the event to disk; the intake's allows that write.
    enqueueTimeoutMs:
      (options.enqueueBoundMs ?? enqueueBoundMs(config)) +
      (spooling === undefined ? 0 : SPOOL_WRITE_MS),
    ...(institutions === undefined ? { enqueue: enqueueOf(events) } : { institutions }),
    rejected,
    checkReady: spooling?.checkReady ?? queuesAnswer(connection, queues),
    clusterNodes: () => readClusterNodeStates(connection),
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
    listenMetrics: metricsServer.listen,
    spool: spooling?.spool,
    drainSpool: () => spooling?.drainer.drainNow() ?? Promise.resolve(),
    close: async () => {
      await metricsServer.close();
      await spooling?.close();
      await Promise.all(queues.map((one) => one.close()));
    },
  };
}

/**
 * /readyz without a spool: the event queue answers; on a cluster, where the queues may be on
 * several primaries, every one of them.
 */
function queuesAnswer(connection: RedisClient, queues: readonly EventQueue[]): () => Promise<void> {
  const [events] = queues;
  if (!connection.isCluster && events !== undefined) return events.ping;
  return async () => {
    await Promise.all(queues.map((one) => one.ping()));
  };
}

/**
 * The enqueue of one event queue: timed for the metrics, bounded (with REDIS_ACK_REPLICAS,
 * confirmed by replicas), through the spool when there is one, in a span when tracing is on.
 */
function enqueuerOf(
  { config, telemetry }: ListenerProcessOptions,
  metrics: WebMetrics,
  spooling: ListenerSpool | undefined,
): (eventQueue: EventQueue, institution?: string) => EnqueueEvent {
  return (eventQueue, institution) => {
    const timed = metrics.timeEnqueue(
      createEventEnqueuer({
        queue: eventQueue.queue,
        dedupWindowHours: config.DEDUP_WINDOW_HOURS,
        attempts: config.JOB_ATTEMPTS,
        ackReplicas: {
          replicas: config.REDIS_ACK_REPLICAS,
          timeoutMs: config.REDIS_ACK_TIMEOUT_MS,
          connection: eventQueue.connection,
        },
      }),
    );
    const enqueue = spooling === undefined ? timed : spooling.enqueueOf(timed, eventQueue);
    // Off, nothing is wrapped: the ingress path is exactly as without tracing.
    return telemetry === undefined ? enqueue : enqueueInSpan(enqueue, institution);
  };
}

/** With METRICS_PORT, the metrics' own server (on METRICS_HOST): started by bin/web.ts. */
function metricsServerOf(
  config: WebConfig,
  metrics: WebMetrics,
): { listen(): Promise<number | undefined>; close(): Promise<void> } {
  let server: MetricsServer | undefined;
  return {
    listen: async () => {
      if (config.METRICS_PORT === undefined) return undefined;
      server = await metrics.listen(config.METRICS_PORT, config.METRICS_HOST);
      return server.port;
    },
    close: async () => {
      await server?.close();
    },
  };
}

/**
 * The spool (SPOOL_DIR) around the enqueues and the rejected store; none when it is unset or off
 * (bin/web.ts resolves the default directory, src/config.ts listenerSpoolDir).
 */
function spoolOf(
  { config, logger, connection, spoolWrite }: ListenerProcessOptions,
  queues: readonly EventQueue[],
  rejected: RejectedStore,
): ListenerSpool | undefined {
  const { SPOOL_DIR } = config;
  if (SPOOL_DIR === undefined || SPOOL_DIR === 'off') return undefined;
  return openListenerSpool({
    config: { ...config, SPOOL_DIR },
    logger,
    connection,
    queues,
    rejected,
    write: spoolWrite,
  });
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
