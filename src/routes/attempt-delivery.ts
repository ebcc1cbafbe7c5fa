import type { CanonicalEvent } from '../events/canonical-event';
import { maskPersonalValues } from '../events/personal-fields';
import type { HistoryRecorder } from '../history';
import type { Logger } from '../logger';
import type { Admission, CircuitBreaker } from './circuit-breaker';
import { DeliveryError, asDeliveryError } from './delivery-error';
import type { DeliverySpanFields } from './delivery-in-span';
import type { Destination } from './destinations/destination';
import { recordAttempt } from './record-attempt';
import type { RecordedOutcome } from './record-attempt';
import type { RouteFiguresWriter } from './route-figures';
import type { RouteMetrics } from './route-metrics';
import type { AnyRoute } from './routes-file';
import { messageOf } from '../message-of';
import { eventLineFields } from '../events/event-line-fields';
import { errField } from '../err-field';

/** What one route delivers through: its destination, and where outcomes are logged and counted. */
export interface RouteDelivery {
  readonly route: AnyRoute;
  readonly destination: Destination;
  readonly logger: Logger;
  readonly metrics?: RouteMetrics;
  /** The route's `send:` (send-shaper.ts): the body sent; the canonical event when it gives none. */
  readonly shape?: (event: CanonicalEvent) => Promise<string | undefined>;
  /** The route's circuit breaker (circuit-breaker.ts); told each attempt's outcome. */
  readonly circuit?: CircuitBreaker;
  /** The event history (docs/history.md): every attempt, inline or queued, with its number. */
  readonly history?: Pick<HistoryRecorder, 'attempt'>;
  /** The route figures the CLI and the console read (route-figures.ts), history on or off. */
  readonly figures?: RouteFiguresWriter;
}

/** Which attempt this is, of how many the route allows (`retry.attempts`, the first included). */
export interface AttemptNumber {
  readonly number: number;
  readonly of: number;
  /** Called once the destination answered or gave up. */
  readonly onSettled?: () => void;
  /** The route job's id; none for an attempt made inline. */
  readonly jobId?: string;
  /** How the circuit let this attempt through (a probe, or as usual). */
  readonly admission?: Admission;
  /** Runs the delivery inside the caller's span (delivery-in-span.ts); directly without it. */
  readonly inSpan?: (fields: DeliverySpanFields, deliver: () => Promise<void>) => Promise<void>;
}

export type AttemptOutcome =
  | { readonly kind: 'delivered' }
  /** Another attempt follows, after the route's backoff (`retryAfterMs` when the destination named it). */
  | { readonly kind: 'retry'; readonly error: unknown; readonly reason: string }
  /** The delivery goes to the route's failed set: not retryable, or the attempts are spent. */
  | {
      readonly kind: 'failed';
      readonly error: unknown;
      readonly reason: string;
      readonly retryable: boolean;
    };

/**
 * One delivery attempt of one event on one route, wherever it runs — inline in the event job or
 * in the route's worker: deliver, classify the failure (the adapter's DeliveryError.retryable),
 * and one log line and metric per outcome. The caller turns the outcome into a job (a retry, the
 * failed set) or nothing.
 */
export async function attemptDelivery(
  delivery: RouteDelivery,
  event: CanonicalEvent,
  attempt: AttemptNumber,
): Promise<AttemptOutcome> {
  const { route, destination } = delivery;
  const fields = {
    eventId: event.id,
    route: route.name,
    destination: destination.kind,
    target: destination.target,
    attempt: attempt.number,
  };
  const line = attemptLineFields(event, fields, attempt);
  const started = performance.now();
  const startedAt = new Date();
  const admission = attempt.admission ?? PASS;
  const record = (outcome: RecordedOutcome, error?: unknown): Promise<void> => {
    countAttempt(delivery, event, attempt, outcome, performance.now() - started, error);
    return recordAttempt(
      delivery.history,
      event,
      {
        route: route.name,
        ...(attempt.jobId === undefined ? {} : { jobId: attempt.jobId }),
        number: attempt.number,
        startedAt,
        durationMs: Math.round(performance.now() - started),
      },
      outcome,
      error,
    );
  };
  try {
    await send(delivery, event, attempt, fields);
  } catch (error) {
    // A failure of the event itself (a transform, a value the protocol cannot carry) says
    // nothing about the destination.
    const destinationFailed = !(error instanceof DeliveryError) || error.destinationAtFault;
    if (destinationFailed) await delivery.circuit?.failed(admission);
    const outcome = failedOutcome(delivery, error, attempt, {
      ...line,
      durationMs: Math.round(performance.now() - started),
    });
    await record(outcome.kind === 'retry' ? 'retrying' : 'failed', error);
    return outcome;
  }
  await delivery.circuit?.succeeded(admission);
  sayDelivered(delivery, event, { ...line, durationMs: Math.round(performance.now() - started) });
  await record('delivered');
  return { kind: 'delivered' };
}

/** A delivered attempt's line and metric, with its latency from the listener's receipt. */
function sayDelivered(
  { route, logger, metrics }: RouteDelivery,
  event: CanonicalEvent,
  line: Record<string, unknown>,
): void {
  const latencyMs = latencyFromReceipt(event);
  metrics?.delivered(route.name, latencyMs === undefined ? undefined : latencyMs / 1000);
  const latency = latencyMs === undefined ? {} : { latencyMs };
  logger.info({ ...line, outcome: 'delivered', ...latency }, 'delivered');
}

/** The route's body (`send:`) to the destination, in the caller's span, within the deadline. */
async function send(
  delivery: RouteDelivery,
  event: CanonicalEvent,
  attempt: AttemptNumber,
  fields: DeliverySpanFields,
): Promise<void> {
  const { destination } = delivery;
  const body = await delivery.shape?.(event);
  // Any throw, also a synchronous one from inside a client library, fails this delivery alone.
  const deliver = async (): Promise<void> => {
    try {
      await destination.deliver(event, body);
    } catch (error) {
      throw asDeliveryError(error, destination.target);
    }
  };
  const delivering = attempt.inSpan === undefined ? deliver() : attempt.inSpan(fields, deliver);
  if (attempt.onSettled !== undefined) void delivering.then(attempt.onSettled, attempt.onSettled);
  await delivering;
}

/**
 * The fields of each line about one attempt (docs/logs.md, "Route attempts"): the event's, the
 * span's, and the route job's id when the attempt is queued (none inline).
 */
function attemptLineFields(
  event: CanonicalEvent,
  fields: DeliverySpanFields & { target: string },
  attempt: AttemptNumber,
) {
  return {
    ...eventLineFields(event),
    ...fields,
    ...(attempt.jobId === undefined ? {} : { queueJobId: attempt.jobId }),
  };
}

/** Milliseconds from the listener's receipt (`meta.receivedAt`) to now; undefined without one. */
function latencyFromReceipt(event: CanonicalEvent): number | undefined {
  const receivedAt =
    event.meta?.receivedAt === undefined ? Number.NaN : Date.parse(event.meta.receivedAt);
  return Number.isNaN(receivedAt) ? undefined : Math.max(0, Date.now() - receivedAt);
}

/**
 * What a failed attempt's line says of its failure: the destination's HTTP status when it
 * answered one, else the failure's machine name (DeliveryError.code, or err.code of errField).
 */
function failureFields(error: unknown): { httpStatus: number } | { errorCode: string } {
  if (error instanceof DeliveryError) {
    return error.status === undefined ? { errorCode: error.code } : { httpStatus: error.status };
  }
  return { errorCode: errField(error).code };
}

/** A failed attempt: another after the backoff, or the failed set; one log line and metric. */
function failedOutcome(
  { route, logger, metrics }: RouteDelivery,
  error: unknown,
  attempt: AttemptNumber,
  fields: DeliverySpanFields & { target: string; durationMs: number },
): AttemptOutcome {
  const retryable = !(error instanceof DeliveryError) || error.retryable;
  const reason = error instanceof Error ? error.message : String(error);
  const failure = { ...failureFields(error), reason };
  if (!retryable || attempt.number >= attempt.of) {
    metrics?.failed(route.name);
    logger.error(
      { ...fields, outcome: 'failed', ...failure, retryable },
      'delivery failed: moved to the route failed set',
    );
    return { kind: 'failed', error, reason, retryable };
  }
  metrics?.retried(route.name);
  logger.warn({ ...fields, outcome: 'retrying', ...failure }, 'delivery failed: will be retried');
  return { kind: 'retry', error, reason };
}

/** The route figures (route-figures.ts): every attempt, inline or queued, one source. */
function countAttempt(
  { route, figures }: RouteDelivery,
  event: CanonicalEvent,
  attempt: AttemptNumber,
  outcome: RecordedOutcome,
  durationMs: number,
  error: unknown,
): void {
  figures?.attempt(route.name, {
    outcome,
    at: Date.now(),
    durationMs: Math.round(durationMs),
    number: attempt.number,
    eventId: event.id,
    institution: event.institution?.value,
    jobId: attempt.jobId,
    // Masked as the history masks it: a destination's answer may quote a user id.
    ...(error === undefined
      ? {}
      : {
          error: maskPersonalValues(messageOf(error, { withCause: false }), event).slice(
            0,
            ERROR_KEPT,
          ),
        }),
  });
}

/** The longest failure message the figures keep (a receiver's reason can be long). */
const ERROR_KEPT = 500;

const PASS: Admission = { kind: 'pass' };
