import { UnrecoverableError } from 'bullmq';
import { SvcApiError } from '@svcws/client';

/**
 * What the worker does with an error a handler threw. The client classifies (SvcApiError's
 * `retryable`), the worker decides: the client cannot know whether the job as a whole may retry.
 */
export type FailureDecision =
  /** Rethrow: BullMQ retries with the job's backoff until its attempts are spent. */
  | { readonly kind: 'retry'; readonly reason: string }
  /** Fail now, no attempt left: the same call would fail the same way. */
  | { readonly kind: 'unrecoverable'; readonly reason: string }
  /** The service refused for load (429): wait, then run the job again without spending an attempt. */
  | { readonly kind: 'rate-limit'; readonly delayMs: number; readonly reason: string };

/** When a 429 names no wait. */
const DEFAULT_RATE_LIMIT_MS = 1000;
const MIN_RATE_LIMIT_MS = 100;

/**
 * Statuses that can pass on a later attempt although the client calls them final:
 * - 401, 403: the API key is being rotated (spec §5 rule 3: the institution creates the key and
 *   its permissions, outside this service; §7 rule 7 leaves the statuses unshown, these are the
 *   platform family's); the same call succeeds once the new key or permission is in place.
 * - 408: the service gave up waiting for the request; nothing was done.
 * Every other 4xx (a 400 with a documented code, 404, …) fails the same way on every attempt.
 */
const RETRYABLE_CLIENT_STATUSES: ReadonlySet<number> = new Set([401, 403, 408]);

/**
 * Handlers say themselves when an error is permanent: they throw an `UnrecoverableError` (or a
 * subclass, such as a kind room's MalformedMarcError). This policy knows no event kind.
 */
export function decideFailure(error: unknown): FailureDecision {
  if (error instanceof UnrecoverableError) return { kind: 'unrecoverable', reason: error.message };
  if (error instanceof SvcApiError) {
    const reason = svcReason(error);
    if (error.status === 429) {
      // Redis refuses a zero expiry; `Retry-After: 0` still means "not this instant".
      const delayMs = Math.max(MIN_RATE_LIMIT_MS, error.retryAfterMs ?? DEFAULT_RATE_LIMIT_MS);
      return { kind: 'rate-limit', delayMs, reason };
    }
    const retry =
      error.retryable ||
      (error.status !== undefined && RETRYABLE_CLIENT_STATUSES.has(error.status));
    return retry ? { kind: 'retry', reason } : { kind: 'unrecoverable', reason };
  }
  // Anything else — a body cut off mid-transfer, a stalled download, an instance not finished
  // yet, a Redis hiccup — may pass.
  return { kind: 'retry', reason: error instanceof Error ? error.message : String(error) };
}

/**
 * `getJobInstance: HTTP 400, code 402218 (invalid instance id): Invalid instance id: 9` — the
 * failed reason a person reads in the failed set: operation, status, code and its meaning.
 */
function svcReason(error: SvcApiError): string {
  const parts = [
    error.status !== undefined ? `HTTP ${String(error.status)}` : undefined,
    error.code !== undefined
      ? `code ${error.code}${error.meaning !== undefined ? ` (${error.meaning})` : ''}`
      : undefined,
  ].filter((part) => part !== undefined);
  const head = `${error.operation}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
  // The client's own messages repeat the operation (and, for a bare status, say nothing more).
  let detail = error.platformMessage ?? error.message;
  if (detail.startsWith(`${error.operation}: `)) detail = detail.slice(error.operation.length + 2);
  if (detail.startsWith(`${error.operation} failed with HTTP`)) detail = '';
  return detail === '' ? head : `${head}: ${detail}`;
}
