import express from 'express';
import type { Router } from 'express';
import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EnqueueEvent } from '../events/enqueue-event';
import type { SpoolStats } from '../events/spool/create-spool';
import type { DeliveryObserver } from '../http/delivery-observer';
import { withTimeout } from '../with-timeout';
import { metricsTokenGuard } from './metrics-token-guard';
import { serveMetrics } from './serve-metrics';
import type { MetricsServer } from './serve-metrics';

export interface WebMetrics {
  registry: Registry;
  /** Pass as createApp's `observer`: counts every delivery by outcome and status. */
  observer: DeliveryObserver;
  /** Wraps the enqueuer so the time spent in Redis alone is measured (not body reading). */
  timeEnqueue: (enqueue: EnqueueEvent) => EnqueueEvent;
  /** `GET /metrics`: this registry, then BullMQ's own export of the queue's job counts. */
  router: Router;
  /** Serves `router` on a port of its own (METRICS_PORT), on `host` when given (METRICS_HOST). */
  listen: (port: number, host?: string) => Promise<MetricsServer>;
}

export interface WebMetricsOptions {
  /** The event queue whose depth by state is exported on every scrape (with INSTITUTIONS_FILE: one per institution). */
  queue: Queue | readonly Queue[];
  /** Node process metrics (heap, event loop lag, …); on by default. */
  defaultMetrics?: boolean;
  path?: string;
  /** A scrape waits this long for the queue counts; BullMQ waits for a connection indefinitely. */
  queueTimeoutMs?: number;
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`; unset, it is open. */
  token?: string | undefined;
  /** The disk spool (SPOOL_DIR), read on scrape; without it no spool series are exported. */
  spool?: { stats: () => SpoolStats } | undefined;
}

/** Seconds; the listener answers 503 when an enqueue takes over 1 s, and the sender gives up at 5 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * The listener's metrics on a registry of its own. Queue depth is not kept in a gauge here: BullMQ
 * exports `bullmq_job_count{queue,state}` itself (Queue#exportPrometheusMetrics, read on scrape), so
 * the numbers are Redis's at the moment of the scrape.
 */
export function createWebMetrics({
  queue,
  defaultMetrics = true,
  path = '/metrics',
  queueTimeoutMs = 1000,
  token,
  spool,
}: WebMetricsOptions): WebMetrics {
  const registry = new Registry();
  if (defaultMetrics) collectDefaultMetrics({ register: registry });
  if (spool !== undefined) registerSpoolGauges(registry, spool);
  const families = createFamilies(registry);
  const router = createMetricsRouter({ registry, families, queue, path, queueTimeoutMs, token });
  return {
    registry,
    observer: createObserver(families),
    timeEnqueue: createEnqueueTimer(families.enqueueDuration),
    router,
    listen: (port, host) => serveMetrics(router, port, host),
  };
}

type Families = ReturnType<typeof createFamilies>;

function createFamilies(registry: Registry) {
  const registers = [registry];
  return {
    deliveries: new Counter({
      name: 'svcws_webhook_deliveries_total',
      help: 'Webhook deliveries answered, by outcome (queued, duplicate, spooled, bad_signature, invalid_event, queue_unavailable, …) and HTTP status',
      // `institution` only with INSTITUTIONS_FILE: a single institution's series stay as they were.
      labelNames: ['outcome', 'status', 'institution'] as const,
      registers,
    }),
    signatureFailures: new Counter({
      name: 'svcws_webhook_signature_failures_total',
      help: 'Deliveries refused because X-Svc-Signature was missing or did not match the body',
      labelNames: ['institution'] as const,
      registers,
    }),
    deliveryDuration: new Histogram({
      name: 'svcws_webhook_delivery_duration_seconds',
      help: 'Time from the request to the answer, by outcome',
      labelNames: ['outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    enqueueDuration: new Histogram({
      name: 'svcws_webhook_enqueue_duration_seconds',
      help: 'Time the enqueue of one event took in Redis, by result (queued, duplicate, error)',
      labelNames: ['result'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rejections: new Counter({
      name: 'svcws_webhook_rejected_total',
      help: 'Signed deliveries that could not become an event, by reason (the answer code) and whether they were kept for `npm run events -- rejected` (kept="false" was answered 503)',
      labelNames: ['reason', 'kept', 'institution'] as const,
      registers,
    }),
    // Silence detection (deploy/prometheus/alerts.yml): a platform that stops sending shows as
    // an age, not as a rate of zero that no single scrape can tell from a quiet minute.
    lastEvent: new Gauge({
      name: 'svcws_webhook_last_event_timestamp_seconds',
      help: 'Unix time of the last event accepted (queued or duplicate), by institution (the path code with INSTITUTIONS_FILE, else the event institution value) and action',
      labelNames: ['institution', 'action'] as const,
      registers,
    }),
    queueOldest: new Gauge({
      name: 'svcws_queue_oldest_waiting_seconds',
      help: 'Age of the oldest event waiting in the event queue (0 when none), by queue; read on scrape',
      labelNames: ['queue'] as const,
      registers,
    }),
    queueScrape: new Gauge({
      name: 'svcws_queue_metrics_up',
      help: '1 when the last scrape could read the queue counts from Redis, else 0',
      registers,
    }),
  };
}

/** Outcomes of an event the listener took (answered 200): a spooled one is queued later. */
const ACCEPTED = new Set(['queued', 'duplicate', 'spooled']);

/**
 * The spool's depth, bytes, oldest entry's age and the bytes it found unreadable, read on scrape: a spool that does not empty
 * means the queue has not answered for that long (deploy/prometheus/alerts.yml).
 */
function registerSpoolGauges(registry: Registry, spool: { stats: () => SpoolStats }): void {
  const registers = [registry];
  const gauge = (name: string, help: string, read: (stats: SpoolStats) => number): void => {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(spool.stats()));
      },
    });
  };
  gauge(
    'svcws_spool_depth',
    "Events in the listener's disk spool, not yet moved into the queue",
    (stats) => stats.depth,
  );
  gauge(
    'svcws_spool_bytes',
    "Bytes of the listener's disk spool on disk (bounded by SPOOL_MAX_BYTES)",
    (stats) => stats.bytes,
  );
  gauge(
    'svcws_spool_oldest_seconds',
    'Age of the oldest event in the disk spool, 0 when it is empty',
    (stats) => stats.oldestAgeSeconds,
  );
  new Counter({
    name: 'svcws_spool_unreadable_bytes_total',
    help: "Bytes of the listener's disk spool that held no readable record, kept aside in SPOOL_DIR/bad (deploy/prometheus/alerts.yml)",
    registers,
    collect() {
      this.reset();
      this.inc(spool.stats().unreadableBytes);
    },
  });
}

/** The institution label of an event that names none, on a listener without INSTITUTIONS_FILE. */
const UNKNOWN_INSTITUTION = 'unknown';

/**
 * Counts every delivery by outcome and status, and its duration by outcome; an accepted event
 * also stamps the time of the last event of its institution and action.
 */
function createObserver(families: Families): DeliveryObserver {
  const { deliveries, rejections, signatureFailures, deliveryDuration, lastEvent } = families;
  // Label sets are few (outcome × status × institution); their children are looked up once, not
  // hashed per delivery.
  const deliveriesBy = memo((key: string) => {
    const [outcome = '', status = '', institution] = key.split('\u0000');
    return deliveries.labels(
      institution === undefined ? { outcome, status } : { outcome, status, institution },
    );
  });
  const durationBy = memo((outcome: string) => deliveryDuration.labels(outcome));
  return ({ outcome, status, durationMs, rejected, institution, action, eventInstitution }) => {
    const of = institution === undefined ? {} : { institution };
    if (ACCEPTED.has(outcome) && action !== undefined) {
      const who = institution ?? eventInstitution ?? UNKNOWN_INSTITUTION;
      lastEvent.set({ institution: who, action }, Date.now() / 1000);
    }
    const key = `${outcome}\u0000${String(status)}`;
    deliveriesBy(institution === undefined ? key : `${key}\u0000${institution}`).inc();
    if (rejected) rejections.inc({ reason: rejected.reason, kept: String(rejected.kept), ...of });
    if (outcome === 'bad_signature') signatureFailures.inc(of);
    durationBy(outcome).observe(durationMs / 1000);
  };
}

/** Wraps an enqueuer so the time spent in Redis alone is observed, by result. */
function createEnqueueTimer(
  enqueueDuration: Families['enqueueDuration'],
): (enqueue: EnqueueEvent) => EnqueueEvent {
  const enqueueBy = memo((result: string) => enqueueDuration.labels(result));
  return (enqueue) => async (event) => {
    const started = performance.now();
    try {
      const result = await enqueue(event);
      enqueueBy(result.duplicate ? 'duplicate' : 'queued').observe(seconds(started));
      return result;
    } catch (error) {
      enqueueBy('error').observe(seconds(started));
      throw error;
    }
  };
}

interface MetricsRouterOptions {
  registry: Registry;
  families: Families;
  queue: Queue | readonly Queue[];
  path: string;
  queueTimeoutMs: number;
  token: string | undefined;
}

/** `GET path`: behind the token guard; the registry, then BullMQ's queue counts. */
function createMetricsRouter(options: MetricsRouterOptions): Router {
  const { registry, path, token } = options;
  const router = express.Router();
  router.get(path, ...metricsTokenGuard({ token }), async (_req, res) => {
    let queueText = '';
    const { queueScrape, queueOldest } = options.families;
    try {
      const [text, oldest] = await withTimeout(
        Promise.all([exportQueues(options.queue), oldestWaiting(options.queue)]),
        options.queueTimeoutMs,
        () => new Error(`no answer within ${String(options.queueTimeoutMs)} ms`),
      );
      queueText = text;
      for (const [queue, seconds] of oldest) queueOldest.set({ queue }, seconds);
      queueScrape.set(1);
    } catch {
      // Redis away: the process metrics still matter (they say why), so answer 200 without them.
      queueScrape.set(0);
      queueOldest.reset();
    }
    const own = await registry.metrics();
    res.setHeader('Content-Type', registry.contentType);
    res.status(200).send(queueText === '' ? own : `${own.trimEnd()}\n${queueText}\n`);
  });
  return router;
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

/** One value per key, made on first use (label children: outcomes and statuses are few). */
function memo<T>(make: (key: string) => T): (key: string) => T {
  const made = new Map<string, T>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}

function queuesOf(queue: Queue | readonly Queue[]): readonly Queue[] {
  return Array.isArray(queue) ? queue : [queue as Queue];
}

/**
 * Seconds since the oldest waiting job of each queue was added. BullMQ 6 LPUSHes new jobs and
 * takes from the tail, so `asc` reads the oldest first (as src/routes/route-metrics.ts does).
 */
async function oldestWaiting(queue: Queue | readonly Queue[]): Promise<[string, number][]> {
  const now = Date.now();
  return Promise.all(
    queuesOf(queue).map(async (one): Promise<[string, number]> => {
      const [oldest] = await one.getJobs('wait', 0, 0, true);
      return [one.name, oldest === undefined ? 0 : Math.max(0, now - oldest.timestamp) / 1000];
    }),
  );
}

/** BullMQ's export of each queue, as one metric family: HELP and TYPE once, then every queue's rows. */
async function exportQueues(queue: Queue | readonly Queue[]): Promise<string> {
  const queues = queuesOf(queue);
  const texts = await Promise.all(queues.map((one) => one.exportPrometheusMetrics()));
  return texts
    .map((text, index) =>
      index === 0
        ? text.trimEnd()
        : text
            .split('\n')
            .filter((line) => line !== '' && !line.startsWith('#'))
            .join('\n'),
    )
    .filter((text) => text !== '')
    .join('\n');
}
