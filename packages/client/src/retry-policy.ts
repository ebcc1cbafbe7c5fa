import type { HttpMethod } from './endpoint';

export interface RetryPolicyOptions {
  /** Retries after the first attempt (SVC_MAX_RETRIES). */
  maxRetries: number;
  /** First backoff ceiling; doubles each attempt (full jitter picks below it). */
  baseDelayMs?: number;
  /** No backoff and no honoured `Retry-After` waits longer than this. */
  maxDelayMs?: number;
  /** [0, 1); injectable so tests can pin the jitter. */
  random?: () => number;
  /** Wall clock for `Retry-After` dates. */
  now?: () => number;
}

/** What the client knows about a failed attempt. */
export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfter: string | null; remaining: number | undefined }
  /** No response. `sent` is false only when the request provably never left (connect failed). */
  | { kind: 'network'; sent: boolean }
  | { kind: 'timeout' };

export type RetryDecision =
  { retry: false; retryAfterMs?: number } | { retry: true; delayMs: number };

export interface RetryPolicy {
  /** `attempt` counts from 1 (the attempt that just failed). */
  decide(method: HttpMethod, failure: AttemptFailure, attempt: number): RetryDecision;
}

/** Error codes of a connection that never opened: nothing of the request was written. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * stripe-node's rule, adapted: retry only what can succeed on retry, with full jitter.
 * - 429: a refusal before any work (docs/platform-shapes.md: the per-second threshold), so it is
 *   retried for every method, after `Retry-After` (seconds or HTTP date) when given. When the
 *   daily budget is spent (`X-Svc-Api-Remaining: 0`) waiting seconds cannot help: not retried here,
 *   the error stays `retryable` for the caller to schedule.
 * - 5xx, network errors, timeouts: retried for GET, PUT and DELETE (idempotent). A POST may have
 *   run (a job submitted twice is two jobs, §4.3), so it is retried only when the connection never
 *   opened.
 */
export function createRetryPolicy({
  maxRetries,
  baseDelayMs = 500,
  maxDelayMs = 30_000,
  random = Math.random,
  now = Date.now,
}: RetryPolicyOptions): RetryPolicy {
  const backoff = (attempt: number): number =>
    Math.floor(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));

  return {
    decide(method, failure, attempt) {
      const idempotent = method !== 'POST';
      if (failure.kind === 'status' && failure.status === 429) {
        const hinted = parseRetryAfter(failure.retryAfter, now());
        const spent = failure.remaining === 0;
        if (spent || attempt > maxRetries || (hinted !== undefined && hinted > maxDelayMs)) {
          return hinted === undefined ? { retry: false } : { retry: false, retryAfterMs: hinted };
        }
        return { retry: true, delayMs: hinted ?? backoff(attempt) };
      }
      if (attempt > maxRetries) return { retry: false };
      const transient =
        (failure.kind === 'status' && failure.status >= 500) ||
        failure.kind === 'network' ||
        failure.kind === 'timeout';
      if (!transient) return { retry: false };
      const safe = idempotent || (failure.kind === 'network' && !failure.sent);
      return safe ? { retry: true, delayMs: backoff(attempt) } : { retry: false };
    },
  };
}

/** `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3), in milliseconds. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday and month; this also keeps `-3` from parsing as a year.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
