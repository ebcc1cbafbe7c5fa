import { UnrecoverableError, Worker } from 'bullmq';
import type { Job, Telemetry } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { CanonicalEvent } from '../events/canonical-event';
import { attemptDelivery } from './attempt-delivery';
import type { RouteDelivery } from './attempt-delivery';
import type { Admission } from './circuit-breaker';
import { deliveryInSpan } from './delivery-in-span';
import { routeBackoff } from './route-backoff';
import { attemptOffsetOf, inlineFailureOf } from './route-job-options';
import type { AnyRoute } from './routes-file';
import type { PausedState } from './paused-state';
import type { TokenBucket } from './token-bucket';
import { isConnectionError } from '../redis/is-connection-error';
import { OutageSafeWorker, isLockRenewalError } from '../worker/outage-safe-worker';
import { errField } from '../err-field';
import { eventLineFields } from '../events/event-line-fields';

export interface RouteWorkerOptions {
  readonly route: AnyRoute;
  readonly queueName: string;
  /** Shared with the route queues; BullMQ opens its own blocking connection from it. */
  readonly connection: RedisClient;
  /** The route's destination, shaping and circuit breaker: one set, shared with inline attempts. */
  readonly delivery: RouteDelivery;
  /**
   * The route's rate in this process, shared with its inline attempts (inline-route.ts), so the
   * two together stay within `ratePerSecond`; BullMQ's limiter still holds it across processes.
   */
  readonly bucket?: TokenBucket;
  /**
   * The route's pause as this process reads it (paused-state.ts): a job taken before a pause
   * goes back to wait, no attempt spent, unless a fresh read says the route runs.
   */
  readonly paused?: PausedState;
  readonly lockDuration?: number;
  readonly stalledInterval?: number;
  readonly autorun?: boolean;
  /** BullMQ's telemetry (src/tracing/); none when tracing is off. */
  readonly telemetry?: Telemetry;
}

/**
 * The BullMQ worker of one route queue: each job is one event for one destination, one attempt
 * per run (attempt-delivery.ts: deliver, classify, log, count); here the outcome becomes BullMQ's —
 * another attempt after the route's backoff, or the failed set at once (UnrecoverableError). A job
 * left by a first attempt inline (route-job-options.ts) numbers its attempts on from there.
 * The route's `ratePerSecond` is BullMQ's limiter, which holds across every worker process.
 */
export function createRouteWorker(options: RouteWorkerOptions): Worker {
  const { route, delivery } = options;
  const processor = routeProcessor(options);

  const worker = new OutageSafeWorker(options.queueName, processor, {
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
  // A route attempt is one delivery, already on the wire: it is not cut off (a cut delivery may
  // still have arrived). Its completion is recorded without the lock (OutageSafeWorker) if Redis
  // lost the lock while away; if another worker took the job meanwhile, that is at least once.
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const jobId of jobIds) {
      delivery.logger.warn(
        { route: route.name, queueJobId: jobId },
        'route job lock lost: its attempt goes on here',
      );
    }
  });
  worker.on('error', (error) => {
    // Redis away is said once by the connection's watch (src/redis/watch-redis.ts), not per retry;
    // a lock BullMQ could not renew, by the lockRenewalFailed line above (it emits both).
    if (isConnectionError(error) || isLockRenewalError(error)) return;
    delivery.logger.warn({ route: route.name, err: errField(error) }, 'route worker error');
  });
  return worker;
}

/** One route job: one attempt, its outcome as BullMQ's (another attempt, or the failed set). */
function routeProcessor(options: RouteWorkerOptions) {
  const { route, bucket, delivery } = options;
  return async (job: Job<CanonicalEvent>): Promise<void> => {
    const offset = attemptOffsetOf(job);
    const inlineFailure = inlineFailureOf(job);
    // Logged and counted when the inline attempt made it; a replay (attempts reset) delivers.
    if (
      inlineFailure !== undefined &&
      job.attemptsMade === 0 &&
      (job.stacktrace ?? []).length === 0
    ) {
      throw new UnrecoverableError(inlineFailure);
    }
    const admission: Admission = delivery.circuit ? await delivery.circuit.admit() : PASS;
    // Open circuit: back to wait, no attempt spent (the queue is held until the next probe).
    if (admission.kind === 'wait') throw Worker.RateLimitError();
    await bucket?.take();
    // Taken before a pause and held by the waits above: back to wait, no attempt spent.
    if (options.paused !== undefined && !(await options.paused.confirm())) {
      delivery.logger.info(
        { ...eventLineFields(job.data), route: route.name, outcome: 'paused', queueJobId: job.id },
        'delivery held: the route is paused',
      );
      throw Worker.RateLimitError();
    }
    const outcome = await attemptDelivery(delivery, job.data, {
      number: job.attemptsMade + 1 + offset,
      of: (job.opts.attempts ?? 1) + offset,
      admission,
      ...(job.id === undefined ? {} : { jobId: job.id }),
      // Off, no span is made (its attributes and the producer link are work for nothing), as the
      // event run's span stage and the listener's enqueue span are composed only when on.
      ...(options.telemetry === undefined
        ? {}
        : { inSpan: (fields, deliver) => deliveryInSpan(job, fields, deliver) }),
    });
    if (outcome.kind === 'delivered') return;
    if (outcome.kind === 'failed' && !outcome.retryable) {
      throw new UnrecoverableError(outcome.reason);
    }
    throw outcome.error;
  };
}

function limiterOf(ratePerSecond: number): { max: number; duration: number } {
  return ratePerSecond >= 1
    ? { max: Math.floor(ratePerSecond), duration: 1000 }
    : { max: 1, duration: Math.round(1000 / ratePerSecond) };
}

const PASS: Admission = { kind: 'pass' };
