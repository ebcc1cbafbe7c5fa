import { UnrecoverableError } from 'bullmq';
import { SvcApiError } from '../svc-client/svc-api-error';
import { MalformedMarcError } from './count-marc-records';

/** What the worker does with an error a handler threw (CONVENTIONS 5: the client classifies, the worker decides). */
export type FailureDecision =
  /** Rethrow: BullMQ retries with the job's backoff until its attempts are spent. */
  | { readonly kind: 'retry'; readonly reason: string }
  /** Fail now, no attempt left: the same call would fail the same way. */
  | { readonly kind: 'unrecoverable'; readonly reason: string }
  /** The service refused for load (429): wait, then run the job again without spending an attempt. */
  | { readonly kind: 'rate-limit'; readonly delayMs: number; readonly reason: string };

/** When a 429 names no wait. */
export const DEFAULT_RATE_LIMIT_MS = 1000;
export const MIN_RATE_LIMIT_MS = 100;

export function decideFailure(error: unknown): FailureDecision {
  if (error instanceof UnrecoverableError) return { kind: 'unrecoverable', reason: error.message };
  if (error instanceof SvcApiError) {
    const reason = svcReason(error);
    if (error.status === 429) {
      // Redis refuses a zero expiry; `Retry-After: 0` still means "not this instant".
      const delayMs = Math.max(MIN_RATE_LIMIT_MS, error.retryAfterMs ?? DEFAULT_RATE_LIMIT_MS);
      return { kind: 'rate-limit', delayMs, reason };
    }
    return error.retryable ? { kind: 'retry', reason } : { kind: 'unrecoverable', reason };
  }
  // The bytes are what the service sends for this instance: a retry would fetch the same.
  if (error instanceof MalformedMarcError) return { kind: 'unrecoverable', reason: error.message };
  // Anything else — a body cut off mid-transfer, a stalled download, a Redis hiccup — may pass.
  return { kind: 'retry', reason: error instanceof Error ? error.message : String(error) };
}

/**
 * `getJobInstance: HTTP 400, code 402218 (invalid instance id): Invalid instance id: 9` — the
 * failed reason a person reads in the failed set: operation, status, code and its meaning.
 */
export function svcReason(error: SvcApiError): string {
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
