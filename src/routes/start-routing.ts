import { Queue } from 'bullmq';
import type { Telemetry, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { HistoryRecorder } from '../history';
import type { Logger } from '../logger';
import { createDestination } from './create-destination';
import { createFanOut } from './create-fan-out';
import type { FanOut, FanOutOptions } from './create-fan-out';
import { createRouteMetrics } from './route-metrics';
import { createCircuitBreaker } from './circuit-breaker';
import { createRouteWorker } from './create-route-worker';
import { prepareDestinations } from './prepare-destinations';
import type { Destination } from './destinations/destination';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { routeQueueName } from './route-queue-name';
import type { AnyRoute } from './routes-file';

export interface StartRoutingOptions {
  readonly routes: readonly AnyRoute[];
  /** The destinations the routes were read with (loadRoutesFile); DESTINATION_ADAPTERS unless given. */
  readonly adapters?: DestinationAdapterList;
  /**
   * The worker's connection (opened in bin/, maxRetriesPerRequest null): the route queues live
   * beside the event queue. Routing does not close it.
   */
  readonly connection: Redis;
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
  /**
   * The event history's recorder (docs/history.md): every delivery attempt, and every route an
   * event's `where:` skipped. Nothing is recorded without it.
   */
  readonly history?: Pick<HistoryRecorder, 'attempt'>;
}

export interface Routing {
  readonly fanOut: FanOut;
  /** Route name → its queue. */
  readonly queues: ReadonlyMap<string, Queue>;
  /** Route name → its worker (empty when `runWorkers` is false). */
  readonly workers: ReadonlyMap<string, Worker>;
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
      : createRouteMetrics(options.registry, queues, connection);
  const destinations: Destination[] = [];
  const workers = new Map<string, Worker>();
  if (runWorkers) {
    for (const { route, queue } of entries) {
      const destination = createDestination(
        route.to,
        { route: route.name, logger, redisUrl: options.redisUrl },
        options.adapters,
      );
      destinations.push(destination);
      const circuit =
        route.circuit === 'off'
          ? undefined
          : createCircuitBreaker({
              route: route.name,
              settings: route.circuit,
              queue,
              connection,
              logger,
            });
      const worker = createRouteWorker({
        route,
        ...(circuit === undefined ? {} : { circuit }),
        queueName: queue.name,
        connection,
        destination,
        logger,
        ...(metrics === undefined ? {} : { metrics }),
        ...(options.history === undefined ? {} : { history: options.history }),
        ...telemetryOf(options),
        ...(options.lockDuration === undefined ? {} : { lockDuration: options.lockDuration }),
        ...(options.stalledInterval === undefined
          ? {}
          : { stalledInterval: options.stalledInterval }),
      });
      workers.set(route.name, worker);
    }
  }
  return {
    fanOut: createFanOut({
      routes: entries,
      keepCompletedHours: options.keepCompletedHours ?? 48,
      ...skippedOf(options.history),
    }),
    queues,
    workers,
    close: async () => {
      await Promise.all([...workers.values()].map((worker) => worker.close()));
      await Promise.all(destinations.map((destination) => destination.close()));
      await Promise.all(entries.map(({ queue }) => queue.close()));
    },
  };
}

function telemetryOf({ telemetry }: StartRoutingOptions): { telemetry?: Telemetry } {
  return telemetry === undefined ? {} : { telemetry };
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
