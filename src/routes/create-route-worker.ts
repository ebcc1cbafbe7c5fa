import { UnrecoverableError, Worker } from 'bullmq';
import type { Job, Telemetry } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CanonicalEvent } from '../events/canonical-event';
import type { HistoryRecorder } from '../history';
import type { Logger } from '../logger';
import { DeliveryError } from './delivery-error';
import type { Admission, CircuitBreaker } from './circuit-breaker';
import type { Destination } from './destinations/destination';
import { deliveryInSpan } from './delivery-in-span';
import { routeBackoff } from './route-backoff';
import type { RouteMetrics } from './route-metrics';
import type { AnyRoute } from './routes-file';
import { createSendShaper } from './send-shaper';

export interface RouteWorkerOptions {
  readonly route: AnyRoute;
  readonly queueName: string;
  /** Shared with the route queues; BullMQ opens its own blocking connection from it. */
  readonly connection: Redis;
  readonly destination: Destination;
  readonly logger: Logger;
  readonly metrics?: RouteMetrics;
  /** The route's circuit breaker; none with `circuit: off`. */
  readonly circuit?: CircuitBreaker;
  readonly lockDuration?: number;
  readonly stalledInterval?: number;
  readonly autorun?: boolean;
  /** BullMQ's telemetry (src/tracing/); none when tracing is off. */
  readonly telemetry?: Telemetry;
  /** The event history's recorder (docs/history.md): one record per attempt; none when off. */
  readonly history?: Pick<HistoryRecorder, 'attempt'>;
}

/**
 * The BullMQ worker of one route queue: each job is one event for one destination. The adapter
 * classifies a failure (DeliveryError.retryable); here it is decided — another attempt after the
 * route's backoff, or the failed set at once (UnrecoverableError) — logged once, and counted.
 * The route's `ratePerSecond` is BullMQ's limiter, which holds across every worker process.
 */
export function createRouteWorker(options: RouteWorkerOptions): Worker {
  const { route, destination, logger, metrics, circuit, history } = options;
  // Shaped here, per attempt, not at fan-out: the job keeps the canonical event for replay and
  // for a routes file changed since (a new `send:` applies to deliveries still waiting).
  const shape = createSendShaper(route.send);
  const processor = async (job: Job<CanonicalEvent>): Promise<void> => {
    const event = job.data;
    const attempt = job.attemptsMade + 1;
    const fields = {
      eventId: event.id,
      route: route.name,
      destination: destination.kind,
      target: destination.target,
      attempt,
    };
    const admission: Admission = circuit ? await circuit.admit() : { kind: 'pass' };
    // Open circuit: back to wait, no attempt spent (the queue is held until the next probe).
    if (admission.kind === 'wait') throw Worker.RateLimitError();
    const started = performance.now();
    const startedAt = new Date();
    // One outbox XADD per attempt (never PostgreSQL): awaited so the record is kept before the job ends.
    const recordAttempt = async (
      outcome: 'delivered' | 'retrying' | 'failed',
      durationMs: number,
      error?: unknown,
    ): Promise<void> => {
      if (history === undefined) return;
      await history.attempt({
        event,
        route: route.name,
        ...(job.id === undefined ? {} : { jobId: job.id }),
        attempt,
        startedAt,
        endedAt: new Date(),
        outcome,
        ...statusAndErrorOf(error),
        durationMs,
      });
    };
    try {
      const body = await shape(event);
      await deliveryInSpan(job, fields, () => destination.deliver(event, body));
    } catch (error) {
      // A failure of the event itself (a transform) says nothing about the destination.
      const destinationFailed = !(error instanceof DeliveryError && error.shaping);
      if (circuit && destinationFailed) await circuit.failed(admission);
      const durationMs = Math.round(performance.now() - started);
      const retryable = !(error instanceof DeliveryError) || error.retryable;
      const reason = error instanceof Error ? error.message : String(error);
      const last = !retryable || attempt >= (job.opts.attempts ?? 1);
      if (last) {
        metrics?.failed(route.name);
        logger.error(
          { ...fields, durationMs, reason, retryable },
          'delivery failed: moved to the route failed set',
        );
      } else {
        metrics?.retried(route.name);
        logger.warn({ ...fields, durationMs, reason }, 'delivery failed: will be retried');
      }
      await recordAttempt(last ? 'failed' : 'retrying', durationMs, error);
      if (!retryable) throw new UnrecoverableError(reason);
      throw error;
    }
    const durationMs = Math.round(performance.now() - started);
    if (circuit) await circuit.succeeded(admission);
    const receivedAt =
      event.meta?.receivedAt === undefined ? Number.NaN : Date.parse(event.meta.receivedAt);
    metrics?.delivered(
      route.name,
      Number.isNaN(receivedAt) ? undefined : Math.max(0, Date.now() - receivedAt) / 1000,
    );
    logger.info({ ...fields, durationMs }, 'delivered');
    await recordAttempt('delivered', durationMs);
  };

  const worker = new Worker<CanonicalEvent>(options.queueName, processor, {
    connection: options.connection,
    concurrency: route.concurrency,
    autorun: options.autorun ?? true,
    settings: { backoffStrategy: routeBackoff },
    ...(route.ratePerSecond === undefined
      ? {}
      : // BullMQ's limiter counts whole jobs per window: a rate under 1/s becomes 1 per 1/rate s.
        { limiter: limiterOf(route.ratePerSecond) }),
    ...(options.lockDuration === undefined ? {} : { lockDuration: options.lockDuration }),
    ...(options.stalledInterval === undefined ? {} : { stalledInterval: options.stalledInterval }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
  });
  worker.on('error', (error) => {
    logger.warn({ route: route.name, err: error.message }, 'route worker error');
  });
  return worker;
}

function limiterOf(ratePerSecond: number): { max: number; duration: number } {
  return ratePerSecond >= 1
    ? { max: Math.floor(ratePerSecond), duration: 1000 }
    : { max: 1, duration: Math.round(1000 / ratePerSecond) };
}

/** The destination's answer for the history: its message, and the HTTP status it names. */
function statusAndErrorOf(error: unknown): { status?: number; error?: string } {
  if (error === undefined) return {};
  const message = error instanceof Error ? error.message : String(error);
  // The HTTP adapter's refusals read `<target>: HTTP <status>` (destinations/http.ts).
  const status = /: HTTP (\d{3})$/.exec(message)?.[1];
  return { error: message, ...(status === undefined ? {} : { status: Number(status) }) };
}
