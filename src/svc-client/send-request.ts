import type { Logger } from 'pino';
import type { HttpTransport, TransportResponse } from './http-transport';
import type { PreparedCall } from './prepare-call';
import type { Governance } from './governance';
import type { RateLimiter, Release, Sleep } from './rate-limiter';
import type { AttemptFailure, RetryPolicy } from './retry-policy';
import { NOT_SENT_CODES } from './retry-policy';
import { parseErrorBody } from './parse-error-body';
import { readCapped } from './read-body';
import { redactText } from './redact-url';
import { SvcApiError } from './svc-api-error';
import { explainJobSubmitError } from './job-submit-errors';
import { generalMeanings } from './endpoints/error-codes';

/** What one call needs from the client; built once by `createSvcClient`. */
export interface Transport {
  readonly http: HttpTransport;
  readonly limiter: RateLimiter;
  readonly retryPolicy: RetryPolicy;
  readonly governance: Governance;
  readonly sleep: Sleep;
  readonly logger: Logger | undefined;
  readonly timeoutMs: number;
  /** Strings that must never leave the client: the API key. */
  readonly secrets: readonly string[];
}

export interface SendOptions {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

/**
 * Reads a 2xx answer inside the attempt, so the timeout covers it and a failure to read it counts
 * as the attempt's failure. A download returns the response itself: its body outlives the timeout.
 */
export type Consume<T> = (response: TransportResponse) => Promise<T>;

/**
 * Sends a prepared call: waits for the limiter (a slot per attempt, released when the attempt
 * ends), applies the timeout and the caller's signal,
 * reads the governance header, classifies failures into `SvcApiError` and retries what the
 * policy allows. One debug line per call (plus one per retry), with the redacted URL only.
 */
export async function sendRequest<T>(
  transport: Transport,
  call: PreparedCall,
  consume: Consume<T>,
  options: SendOptions = {},
): Promise<T> {
  const { endpoint } = call;
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? transport.timeoutMs;
  const callerSignal = options.signal;
  const log = (fields: Record<string, unknown>, message: string): void =>
    transport.logger?.debug(
      {
        operation: endpoint.operation,
        method: endpoint.method,
        url: call.redactedUrl,
        durationMs: Math.round(performance.now() - started),
        remaining: transport.governance.remaining(),
        ...fields,
      },
      message,
    );
  const base = {
    operation: endpoint.operation,
    method: endpoint.method,
    route: endpoint.route,
    url: call.redactedUrl,
  };
  const aborted = (attempts: number): SvcApiError =>
    new SvcApiError({
      ...base,
      message: `${endpoint.operation}: aborted by the caller`,
      status: undefined,
      code: 'ABORTED',
      meaning: undefined,
      retryable: false,
      attempts,
    });

  for (let attempt = 1; ; attempt += 1) {
    // Each attempt holds its own slot until its answer, failure or abort (rate-limiter.ts).
    let release: Release;
    try {
      release = await transport.limiter.acquire(callerSignal);
    } catch {
      log({ attempts: attempt, outcome: 'aborted' }, 'svc call');
      throw aborted(attempt - 1);
    }

    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    let failure: AttemptFailure;
    let error: SvcApiError;
    try {
      const signal = callerSignal
        ? AbortSignal.any([callerSignal, timeout.signal])
        : timeout.signal;
      const response = await transport.http(call.url, {
        method: endpoint.method,
        headers: call.headers,
        body: call.body,
        signal,
      });
      const remaining = transport.governance.observe(response.header);
      if (response.status >= 200 && response.status < 300) {
        const result = await consume(response);
        log({ status: response.status, attempts: attempt }, 'svc call');
        return result;
      }
      const text = await readCapped(response.body);
      error = statusError(call, response, text, transport.secrets);
      failure = {
        kind: 'status',
        status: response.status,
        retryAfter: response.header('retry-after') ?? null,
        remaining,
      };
    } catch (caught) {
      if (caught instanceof SvcApiError) throw caught.with({ attempts: attempt });
      if (callerSignal?.aborted) {
        log({ attempts: attempt, outcome: 'aborted' }, 'svc call');
        throw aborted(attempt);
      }
      const cause = sanitizedCause(caught, transport.secrets);
      if (timeout.signal.aborted) {
        failure = { kind: 'timeout' };
        error = new SvcApiError({
          ...base,
          message: `${endpoint.operation}: no complete answer within ${timeoutMs} ms (timeout)`,
          status: undefined,
          code: 'TIMEOUT',
          meaning: undefined,
          retryable: true,
          cause,
        });
      } else {
        const sent = !notSent(caught);
        failure = { kind: 'network', sent };
        error = new SvcApiError({
          ...base,
          message: `${endpoint.operation}: network error (${cause.message})`,
          status: undefined,
          code: 'NETWORK',
          meaning: undefined,
          retryable: true,
          cause,
        });
      }
    } finally {
      clearTimeout(timer);
      // Every way out of the attempt passes here, so no slot is lost; release() is idempotent.
      release();
    }

    const decision = transport.retryPolicy.decide(endpoint.method, failure, attempt);
    if (!decision.retry) {
      log(
        { status: error.status, code: error.code, attempts: attempt, outcome: 'failed' },
        'svc call',
      );
      const final = error.with({
        attempts: attempt,
        ...(decision.retryAfterMs !== undefined ? { retryAfterMs: decision.retryAfterMs } : {}),
      });
      throw explainJobSubmitError(final);
    }
    log(
      { status: error.status, code: error.code, attempt, delayMs: decision.delayMs },
      'svc retry',
    );
    try {
      await transport.sleep(decision.delayMs, callerSignal);
    } catch {
      throw aborted(attempt);
    }
  }
}

function statusError(
  call: PreparedCall,
  response: TransportResponse,
  text: string,
  secrets: readonly string[],
): SvcApiError {
  const { endpoint } = call;
  const parsed = parseErrorBody(text, response.header('content-type'));
  const first = parsed.errors[0];
  const code = first?.code;
  // The row's documented meaning; for a code the row does not list, §7's general one if any.
  const meaning =
    code === undefined
      ? undefined
      : Object.hasOwn(endpoint.errors, code)
        ? endpoint.errors[code]
        : Object.hasOwn(generalMeanings, code)
          ? generalMeanings[code]
          : undefined;
  // The platform fills placeholders with what it was given (§7 rule 1): scrub it like any text.
  const platformMessage =
    first?.message !== undefined ? redactText(first.message, secrets) : undefined;
  const status = response.status;
  return new SvcApiError({
    message:
      platformMessage ??
      `${endpoint.operation} failed with HTTP ${status}${meaning ? ` (${meaning})` : ''}`,
    status,
    code,
    meaning,
    platformMessage,
    trackingId: first?.trackingId,
    operation: endpoint.operation,
    method: endpoint.method,
    route: endpoint.route,
    url: call.redactedUrl,
    retryable: status === 429 || status >= 500,
  });
}

/** True when every error in the chain says the connection never opened (nothing was written). */
function notSent(error: unknown): boolean {
  const codes = errorCodes(error);
  return codes.length > 0 && codes.every((code) => NOT_SENT_CODES.has(code));
}

/**
 * The `code`s of the innermost errors: a wrapped error (`{ cause }`) is looked into, and a
 * dual-stack connect fails as an `AggregateError` of one error per address.
 */
function errorCodes(error: unknown, depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 5) return [];
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.flatMap((inner: unknown) => {
      const codes = errorCodes(inner, depth + 1);
      return codes.length > 0 ? codes : ['UNKNOWN'];
    });
  }
  const cause: unknown = 'cause' in error ? error.cause : undefined;
  if (cause !== undefined) {
    const inner = errorCodes(cause, depth + 1);
    if (inner.length > 0) return inner;
  }
  const code: unknown = 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? [code] : [];
}

/** An error safe to attach as `cause`: message, code and stack scrubbed of the key and URL query. */
export class SanitizedError extends Error {
  readonly code: string | undefined;
  constructor(name: string, message: string, code: string | undefined, stack: string | undefined) {
    super(message);
    this.name = name;
    this.code = code;
    if (stack !== undefined) this.stack = stack;
  }
}

export function sanitizedCause(error: unknown, secrets: readonly string[]): SanitizedError {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  const message = redactText(parts.filter((part) => part !== '').join(': '), secrets);
  const name = error instanceof Error ? error.name : 'Error';
  const stack =
    error instanceof Error && error.stack ? redactText(error.stack, secrets) : undefined;
  return new SanitizedError(name, message, errorCodes(error)[0], stack);
}
