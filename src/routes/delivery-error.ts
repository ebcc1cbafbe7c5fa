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
  constructor(
    message: string,
    options: { retryable: boolean; retryAfterMs?: number; cause?: unknown; shaping?: boolean },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DeliveryError';
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.shaping = options.shaping ?? false;
  }
}
