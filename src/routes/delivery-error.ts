import { errnoCode } from '../errno-code';
import { redactUrlCredentials } from './redact-url-credentials';

/**
 * A destination refused or could not take a delivery. The adapter classifies, since only it knows
 * its transport: `retryable` when the same delivery may succeed later (network, timeout, 5xx,
 * broker away); the route worker decides (retry with backoff, or fail now into the route's failed
 * set).
 */
export class DeliveryError extends Error {
  readonly retryable: boolean;
  /** The destination said when to come back (HTTP `Retry-After`): the next attempt waits this long. */
  readonly retryAfterMs: number | undefined;
  /** The route's `send:` could not shape this event: no fault of the destination (circuit). */
  readonly shaping: boolean;
  /** The HTTP status the destination answered with, when it answered one. */
  readonly status: number | undefined;
  /**
   * The value of this delivery the destination's protocol cannot carry (`messageId`, `topic`,
   * `header x-svc-event-id`): the delivery can never succeed, so it fails at once, and it says
   * nothing of the destination (circuit).
   */
  readonly field: string | undefined;
  /**
   * A machine name of the failure, for the attempt's log line (`errorCode`) and `err.code`: the
   * adapter's (`timeout`, `no_stream`, `unroutable`, an errno such as `ECONNREFUSED`), else one
   * of `http_<status>`, `unsendable`, `transform_failed`, the cause's code, `delivery_failed`.
   */
  readonly code: string;
  constructor(
    message: string,
    options: {
      retryable: boolean;
      retryAfterMs?: number;
      cause?: unknown;
      shaping?: boolean;
      status?: number;
      field?: string;
      code?: string;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DeliveryError';
    this.retryable = options.field === undefined ? options.retryable : false;
    this.retryAfterMs = options.retryAfterMs;
    this.shaping = options.shaping ?? false;
    this.status = options.status;
    this.field = options.field;
    this.code = options.code ?? defaultCodeOf(options);
  }

  /** Whether the failure tells something of the destination (what its circuit breaker counts). */
  get destinationAtFault(): boolean {
    return !this.shaping && this.field === undefined;
  }
}

function defaultCodeOf(options: {
  cause?: unknown;
  shaping?: boolean;
  status?: number;
  field?: string;
}): string {
  if (options.field !== undefined) return 'unsendable';
  if (options.shaping === true) return 'transform_failed';
  if (options.status !== undefined) return `http_${String(options.status)}`;
  return errnoCode(options.cause) ?? 'delivery_failed';
}

/** A delivery that can never succeed: `field` of it is what the protocol cannot carry, and why. */
export function unsendable(target: string, field: string, problem: string): DeliveryError {
  return new DeliveryError(`${target}: ${field} ${problem}; the protocol cannot carry it`, {
    retryable: false,
    field,
  });
}

/**
 * Any throw of a delivery as a DeliveryError: one of the adapter's own as it is, anything else
 * (a client library's TypeError, an encoder's RangeError) as a retryable failure of `target`, its
 * message with the credentials of any URL redacted.
 */
export function asDeliveryError(error: unknown, target: string): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new DeliveryError(`${target}: ${redactUrlCredentials(message)}`, {
    retryable: true,
    cause: error,
  });
}

/**
 * The same failure with `redact` applied to its message (create-secret-redactor.ts), rebuilt
 * without its cause: a client library's error may quote the URL the message was made of.
 */
export function redactedDeliveryError(
  error: DeliveryError,
  redact: (text: string) => string,
): DeliveryError {
  const { retryAfterMs, status, field, code } = error;
  return new DeliveryError(redact(error.message), {
    retryable: error.retryable,
    shaping: error.shaping,
    code,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(status === undefined ? {} : { status }),
    ...(field === undefined ? {} : { field }),
  });
}

/**
 * The DeliveryError of a destination that has not answered within `ms`: retryable, since a
 * broker that takes a publish and never confirms must not hold a delivery (and its job lock).
 */
export function noAnswerWithin(
  what: string,
  ms: number,
  waitingFor = 'confirmation',
): DeliveryError {
  return new DeliveryError(`${what}: no ${waitingFor} within ${String(ms)} ms`, {
    retryable: true,
    code: 'timeout',
  });
}
