import { Queue } from 'bullmq';
import type { Telemetry, Worker } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { Registry } from 'prom-client';
import type { EventKind } from '../events/kinds/event-kind';
import type { HistoryRecorder } from '../history';
import type { Logger } from '../logger';
import { createDestination } from './create-destination';
import type { RedactSecrets } from './create-secret-redactor';
import { createFanOut } from './create-fan-out';
import type { FanOut, FanOutOptions, FanOutRoute } from './create-fan-out';
import { createFairPriorities } from './fair-priorities';
import { createInlineRoute } from './inline-route';
import { createPausedState } from './paused-state';
import type { PausedState } from './paused-state';
import { createRouteFigures } from './route-figures';
import type { RouteFiguresWriter } from './route-figures';
import { createRouteMetrics } from './route-metrics';
import { createCircuitBreaker } from './circuit-breaker';
import type { CircuitBreaker } from './circuit-breaker';
import type { RouteMetrics } from './route-metrics';
import { createSendShaper } from './send-shaper';
import { createRouteWorker } from './create-route-worker';
import { prepareDestinations } from './prepare-destinations';
import type { Destination } from './destinations/destination';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { KEEP_COMPLETED_HOURS } from './route-job-options';
import { routeQueueName } from './route-queue-name';
import type { AnyRoute } from './routes-file';
import { createTokenBucket } from './token-bucket';

/** ROUTE_INLINE: the first delivery attempt in the event job (docs/routing.md). */
export interface InlineDeliveryOptions {
  /** ROUTE_INLINE_DEADLINE_MS: the other routes wait no longer; a held route job follows it. */
  readonly deadlineMs: number;
  /**
   * A further say per route, asked for every event (a circuit breaker): `false` queues the
   * delivery as a route job. Must answer at once, without a round trip.
   */
  readonly canTakeInline?: (route: AnyRoute) => boolean;
}

/**
 * How often a route queue's pause is read by each delivering process (paused-state.ts): a
 * quarter of PAUSE_CONFIRMED_FOR_MS, so a read may be late by most of a second (a busy event loop,
 * a slow answer) before first attempts stop being made inline.
 */
const PAUSED_STATE_EVERY_MS = 250;

export interface StartRoutingOptions {
  readonly routes: readonly AnyRoute[];
  /** The destinations the routes were read with (loadRoutesFile); DESTINATION_ADAPTERS unless given. */
  readonly adapters?: DestinationAdapterList;
  /**
   * The worker's connection (opened in bin/, maxRetriesPerRequest null): the route queues live
   * beside the event queue. Routing does not close it.
   */
  readonly connection: RedisClient;
  /** REDIS_URL: the default Redis of a redisStream destination. */
  readonly redisUrl: string;
  /** QUEUE_NAME: each route's queue is named from it (route-queue-name.ts). */
  readonly queueName: string;
  readonly logger: Logger;
  /** The worker's metrics registry; no route metrics without it. */
  readonly registry?: Registry;
  /** How long delivered jobs are kept to recognize a second fan-out of one event; 48 h unless given. */
  readonly keepCompletedHours?: number;
  /** Start the route workers at once (default); `false` only queues (a fan-out-only process, tests). */
  readonly runWorkers?: boolean;
  readonly lockDuration?: number;
  readonly stalledInterval?: number;
  /** BullMQ's telemetry (src/tracing/): route jobs carry the event's trace; none when off. */
  readonly telemetry?: Telemetry;
  /** The event kinds `send:` shapes by (thin payload, mask); eventKinds unless given. */
  readonly kinds?: readonly EventKind[];
  /**
   * Make the first attempt of each delivery in the event job where the route can take it
   * (ROUTE_INLINE on); unset: every delivery is a route job. Needs `runWorkers`.
   */
  readonly inline?: InlineDeliveryOptions;
  /**
   * The event history's recorder (docs/history.md): every delivery attempt, and every route an
   * event's `where:` skipped. Nothing is recorded without it.
   */
  readonly history?: Pick<HistoryRecorder, 'attempt'>;
  /**
   * The process serves several institutions (INSTITUTIONS_FILE with two or more): a route's
   * deliveries are taken round-robin across them (fair-priorities.ts), one script call per event
   * routed to a queue. Off (a single institution): nothing is added to the path.
   */
  readonly fairAcrossInstitutions?: boolean;
  /** The `User-Agent` of HTTP deliveries (product-user-agent.ts); the runtime's own unless given. */
  readonly userAgent?: string;
  /**
   * loadRoutesFile's `redactSecrets`: the values substituted into the routes file are masked in
   * every target and failure (log lines, spans, failed reasons, history, figures). Without it only
   * URL passwords are hidden.
   */
  readonly redactSecrets?: RedactSecrets;
}

export interface Routing {
  readonly fanOut: FanOut;
  /** Route name → its queue. */
  readonly queues: ReadonlyMap<string, Queue>;
  /** Route name → its worker (empty when `runWorkers` is false). */
  readonly workers: ReadonlyMap<string, Worker>;
  /**
   * Resolves once every route worker is connected and each route's pause has been read (one round
   * trip each): from then on an attempt may go inline. For a caller that must know, not guess.
   */
  whenReady(): Promise<void>;
  /** Waits for deliveries in flight, then closes workers, adapters and queues. */
  close(): Promise<void>;
}

/**
 * Everything routing needs in a worker process: one queue per route (its own retries, rate limit,
 * failed set and pause), the fan-out the event worker calls, and one worker per route delivering
 * through its adapter. One destination down fills only its own queue. Throws a StartupFileError
 * when a destination can be seen to be unusable already (a file destination's directory).
 */
export function startRouting(options: StartRoutingOptions): Routing {
  const { logger } = options;
  const { connection } = options;
  const runWorkers = options.runWorkers ?? true;
  // Only a process that delivers needs to reach the destinations (and may create directories).
  if (runWorkers) {
    prepareDestinations(options.routes, { logger, redisUrl: options.redisUrl }, options.adapters);
  }
  const entries = options.routes.map((route) => {
    const queue = new Queue(routeQueueName(options.queueName, route.name), {
      connection,
      ...telemetryOf(options),
    });
    queue.on('error', () => undefined);
    return { route, queue };
  });
  const queues = new Map(entries.map(({ route, queue }) => [route.name, queue]));
  const metrics =
    options.registry === undefined
      ? undefined
      : createRouteMetrics(options.registry, queues, connection, options.routes);
  // Every attempt of this process, inline and queued, counted where the CLI and console read.
  const figures = runWorkers ? createRouteFigures({ connection, queues }) : undefined;
  const destinations: Destination[] = [];
  const workers = new Map<string, Worker>();
  const pausedStates: PausedState[] = [];
  const fanOutRoutes = entries.map(({ route, queue }): FanOutRoute => {
    if (!runWorkers) return { route, queue };
    const delivering = deliveringRoute(options, route, queue, { metrics, figures });
    destinations.push(delivering.destination);
    workers.set(route.name, delivering.worker);
    pausedStates.push(delivering.paused);
    return delivering.fanOut;
  });
  return {
    fanOut: createFanOut({
      routes: fanOutRoutes,
      keepCompletedHours: options.keepCompletedHours ?? KEEP_COMPLETED_HOURS,
      logger: options.logger,
      ...skippedOf(options.history),
      ...(options.fairAcrossInstitutions === true
        ? { fair: createFairPriorities(connection) }
        : {}),
    }),
    queues,
    workers,
    whenReady: async () => {
      await Promise.all([...workers.values()].map((worker) => worker.waitUntilReady()));
      await Promise.all(pausedStates.map((state) => state.confirm()));
    },
    close: async () => {
      for (const state of pausedStates) state.stop();
      await Promise.all([...workers.values()].map((worker) => worker.close()));
      await figures?.close();
      await Promise.all(destinations.map((destination) => destination.close()));
      await Promise.all(entries.map(({ queue }) => queue.close()));
    },
  };
}

function telemetryOf({ telemetry }: StartRoutingOptions): { telemetry?: Telemetry } {
  return telemetry === undefined ? {} : { telemetry };
}

/** The route's circuit breaker, unless `circuit: off`. */
function circuitOf(
  options: StartRoutingOptions,
  route: AnyRoute,
  queue: Queue,
): CircuitBreaker | undefined {
  if (route.circuit === 'off') return undefined;
  const { connection, logger } = options;
  return createCircuitBreaker({
    route: route.name,
    settings: route.circuit,
    queue,
    connection,
    logger,
  });
}

/** A route's destination, its texts masked for the routes file's secrets. */
function routeDestination(options: StartRoutingOptions, route: AnyRoute): Destination {
  return createDestination(
    route.to,
    {
      route: route.name,
      logger: options.logger,
      redisUrl: options.redisUrl,
      ...(options.redactSecrets === undefined ? {} : { redactSecrets: options.redactSecrets }),
    },
    options.adapters,
    options.userAgent,
  );
}

/** A route this process delivers: its destination, its worker, and its inline attempts. */
function deliveringRoute(
  options: StartRoutingOptions,
  route: AnyRoute,
  queue: Queue,
  {
    metrics,
    figures,
  }: { metrics?: RouteMetrics | undefined; figures?: RouteFiguresWriter | undefined },
): { destination: Destination; worker: Worker; fanOut: FanOutRoute; paused: PausedState } {
  const { logger, inline } = options;
  const destination = routeDestination(options, route);
  const bucket =
    route.ratePerSecond === undefined ? undefined : createTokenBucket(route.ratePerSecond);
  const circuit = circuitOf(options, route, queue);
  // Shaped per attempt, not at fan-out: the job keeps the canonical event for replay and for a
  // routes file changed since (a new `send:` applies to deliveries still waiting).
  const delivery = {
    route,
    destination,
    logger,
    shape: createSendShaper(route.send, undefined, options.kinds),
    ...(metrics === undefined ? {} : { metrics }),
    ...(figures === undefined ? {} : { figures }),
    ...(circuit === undefined ? {} : { circuit }),
    ...(options.history === undefined ? {} : { history: options.history }),
  };
  // Read by the route worker and the inline attempts alike: a pause holds for both.
  const paused = createPausedState(queue, PAUSED_STATE_EVERY_MS);
  const worker = createRouteWorker({
    route,
    paused,
    queueName: queue.name,
    connection: options.connection,
    delivery,
    ...(bucket === undefined ? {} : { bucket }),
    ...telemetryOf(options),
    ...(options.lockDuration === undefined ? {} : { lockDuration: options.lockDuration }),
    ...(options.stalledInterval === undefined ? {} : { stalledInterval: options.stalledInterval }),
  });
  if (inline === undefined) return { destination, worker, paused, fanOut: { route, queue } };
  const canTakeInline = inline.canTakeInline;
  const inlineRoute = createInlineRoute({
    delivery,
    worker,
    paused,
    bucket,
    deadlineMs: inline.deadlineMs,
    traced: options.telemetry !== undefined,
    // An open circuit's deliveries wait as route jobs, where the probe decides.
    canTakeInline: (one) =>
      (circuit?.closedNow() ?? true) && (canTakeInline === undefined || canTakeInline(one)),
  });
  return { destination, worker, paused, fanOut: { route, queue, inline: inlineRoute } };
}

/** A route skipped by `where:` is one history record: no attempt made, nothing delivered. */
function skippedOf(
  history: Pick<HistoryRecorder, 'attempt'> | undefined,
): Pick<FanOutOptions, 'onSkipped'> {
  if (history === undefined) return {};
  return {
    onSkipped: (event, route) => {
      const now = new Date();
      return history.attempt({
        event,
        route,
        attempt: 0,
        startedAt: now,
        endedAt: now,
        outcome: 'skipped',
        durationMs: 0,
      });
    },
  };
}
