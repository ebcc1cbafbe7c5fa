import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import { isCircuitOpen } from './circuit-breaker';
import { readRouteReport } from './read-route-report';
import { ROUTE_STATES } from './route-state';
import { routeWaitingCount } from './route-waiting-count';
import type { AnyRoute } from './routes-file';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

/** What the route workers report; the gauges read the route queues when scraped. */
export interface RouteMetrics {
  delivered(route: string, latencySeconds: number | undefined): void;
  /** An attempt failed and another will follow. */
  retried(route: string): void;
  /** A delivery went to the route's failed set (attempts spent, or not retryable). */
  failed(route: string): void;
}

const ROUTE_LABEL = ['route'] as const;

/** Received → confirmed, in seconds: milliseconds when all is well, hours when a destination was down. */
const LATENCY_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600,
];

/**
 * Per-route metrics on the worker's registry: delivered, failed and retried counters, the
 * received → confirmed latency histogram, and two gauges read from Redis at scrape time (waiting
 * jobs, age of the oldest), so they hold across every worker process.
 */
export function createRouteMetrics(
  registry: Registry,
  queues: ReadonlyMap<string, Queue>,
  /** The queues' connection: with it, the circuit gauge (`svcws_route_circuit_open`). */
  connection?: RedisClient,
  /** The routes of `queues`: with them and `connection`, the state gauge (`svcws_route_state`). */
  routes?: readonly AnyRoute[],
): RouteMetrics {
  const labelNames = ROUTE_LABEL;
  const registers = [registry];
  const delivered = new Counter({
    name: 'svcws_route_delivered_total',
    help: 'Deliveries confirmed by the destination, by route',
    labelNames,
    registers,
  });
  const failed = new Counter({
    name: 'svcws_route_failed_total',
    help: 'Deliveries moved to the route failed set, by route',
    labelNames,
    registers,
  });
  const retried = new Counter({
    name: 'svcws_route_retried_total',
    help: 'Delivery attempts that failed and will be retried, by route',
    labelNames,
    registers,
  });
  const latency = new Histogram({
    name: 'svcws_route_delivery_latency_seconds',
    help: 'Event received by the listener to delivery confirmed by the destination, by route',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  registerQueueGauges(registry, queues);
  if (connection !== undefined) registerCircuitGauge(registry, queues, connection);
  if (connection !== undefined && routes !== undefined) {
    registerStateGauge(registry, queues, connection, routes);
  }
  return {
    delivered: (route, latencySeconds) => {
      delivered.inc({ route });
      if (latencySeconds !== undefined) latency.observe({ route }, latencySeconds);
    },
    retried: (route) => retried.inc({ route }),
    failed: (route) => failed.inc({ route }),
  };
}

/** 1 while a route's circuit is open (its deliveries wait), read from Redis at scrape time. */
function registerCircuitGauge(
  registry: Registry,
  queues: ReadonlyMap<string, Queue>,
  connection: RedisClient,
): void {
  new Gauge({
    name: 'svcws_route_circuit_open',
    help: 'Whether the route circuit is open (1): deliveries wait until a probe succeeds, by route',
    labelNames: ROUTE_LABEL,
    registers: [registry],
    async collect() {
      for (const [route, queue] of queues) {
        this.set({ route }, (await isCircuitOpen(connection, queue)) ? 1 : 0);
      }
    },
  });
}

/**
 * `svcws_route_state{route, state}`: 1 for the state the route is in (route-state.ts), 0 for the
 * others — every state present, so an alert can ask for one (deploy/prometheus/alerts.yml).
 */
function registerStateGauge(
  registry: Registry,
  queues: ReadonlyMap<string, Queue>,
  connection: RedisClient,
  routes: readonly AnyRoute[],
): void {
  new Gauge({
    name: 'svcws_route_state',
    help: 'The route state (1 for the current one): running, failing, paused, circuit open, rate-limited',
    labelNames: ['route', 'state'] as const,
    registers: [registry],
    async collect() {
      for (const route of routes) {
        const queue = queues.get(route.name);
        if (queue === undefined) continue;
        const { state } = (await readRouteReport(connection, queue, route)).state;
        for (const one of ROUTE_STATES)
          this.set({ route: route.name, state: one }, one === state ? 1 : 0);
      }
    },
  });
}

/**
 * The two gauges read from Redis at scrape time: waiting jobs, and the age of the oldest, per
 * route queue.
 */
function registerQueueGauges(registry: Registry, queues: ReadonlyMap<string, Queue>): void {
  new Gauge({
    name: 'svcws_route_waiting',
    help: 'Deliveries waiting in the route queue (paused included), by route',
    labelNames: ROUTE_LABEL,
    registers: [registry],
    async collect() {
      for (const [route, queue] of queues) {
        this.set({ route }, await routeWaitingCount(queue));
      }
    },
  });
  new Gauge({
    name: 'svcws_route_oldest_waiting_seconds',
    help: 'Age of the oldest delivery waiting in the route queue (0 when none), by route',
    labelNames: ROUTE_LABEL,
    registers: [registry],
    async collect() {
      const now = Date.now();
      for (const [route, queue] of queues) {
        // BullMQ 6 LPUSHes a new job on the wait list and its workers take from the tail
        // (RPOPLPUSH), so the oldest is last; `asc` reads the list from that end. A paused queue
        // keeps its jobs on the same list. Checked by test/component/routes/route-metrics.test.ts.
        // With several institutions the jobs wait in the prioritized set (fair-priorities.ts),
        // whose first is the oldest of the round served now: the older of the two heads.
        const heads = await queue.getJobs(['wait', 'prioritized'], 0, 0, true);
        const oldest = Math.min(now, ...heads.map((job) => job.timestamp));
        this.set({ route }, Math.max(0, now - oldest) / 1000);
      }
    },
  });
}
