import type { ClientLogger } from './client-logger';
import type { HttpTransport, TransportResponse } from './http-transport';
import type { PreparedCall } from './prepare-call';
import type { Governance } from './governance';
import type { RateLimiter, Release, Sleep } from './rate-limiter';
import type { AttemptFailure, RetryDecision, RetryPolicy } from './retry-policy';
import { explainRefusal } from './explain-refusal';
import { readCapped } from './read-body';
import { notSent, sanitizedCause } from './sanitized-cause';
import { statusError } from './status-error';
import { SvcApiError } from './svc-api-error';

/** What one call needs from the client; built once by `createSvcClient`. */
export interface Transport {
  readonly http: HttpTransport;
  readonly limiter: RateLimiter;
  readonly retryPolicy: RetryPolicy;
  readonly governance: Governance;
  readonly sleep: Sleep;
  readonly logger: ClientLogger | undefined;
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

type Log = (fields: Record<string, unknown>, message: string) => void;

/** How one attempt ended: an answer, the caller's abort, or a failure the policy judges. */
type AttemptResult<T> =
  | { readonly kind: 'answer'; readonly value: T; readonly status: number }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'failed'; readonly failure: AttemptFailure; readonly error: SvcApiError };

/**
 * Sends a prepared call: waits for the limiter (a slot per attempt, released when the attempt
 * ends), applies the timeout and the caller's signal, reads the governance header, classifies
 * failures into `SvcApiError` and retries what the policy allows. One debug line per call (plus
 * one per retry), with the redacted URL only.
 */
export async function sendRequest<T>(
  transport: Transport,
  call: PreparedCall,
  consume: Consume<T>,
  options: SendOptions = {},
): Promise<T> {
  const log = callLog(transport, call);
  const signal = options.signal;
  const timeoutMs = options.timeoutMs ?? transport.timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    const release = await acquireSlot(transport, call, signal, attempt, log);
    const result = await attemptOnce(transport, call, consume, {
      number: attempt,
      signal,
      timeoutMs,
      release,
    });
    if (result.kind === 'answer') {
      log({ httpStatus: result.status, attempts: attempt }, 'svc call');
      return result.value;
    }
    if (result.kind === 'aborted') {
      log({ attempts: attempt, outcome: 'aborted' }, 'svc call');
      throw abortedError(call, attempt);
    }
    const { error } = result;
    const decision = transport.retryPolicy.decide(call.endpoint.method, result.failure, attempt);
    if (!decision.retry) {
      log(
        { httpStatus: error.status, code: error.code, attempts: attempt, outcome: 'failed' },
        'svc call',
      );
      throw finalError(error, call, attempt, decision);
    }
    log(
      { httpStatus: error.status, code: error.code, attempt, delayMs: decision.delayMs },
      'svc retry',
    );
    try {
      await transport.sleep(decision.delayMs, signal);
    } catch {
      throw abortedError(call, attempt);
    }
  }
}

/** Each attempt holds its own slot until its answer, failure or abort (rate-limiter.ts). */
async function acquireSlot(
  transport: Transport,
  call: PreparedCall,
  signal: AbortSignal | undefined,
  attempt: number,
  log: Log,
): Promise<Release> {
  try {
    return await transport.limiter.acquire(signal);
  } catch {
    log({ attempts: attempt, outcome: 'aborted' }, 'svc call');
    throw abortedError(call, attempt - 1);
  }
}

/** One HTTP exchange under the timeout; an error thrown by `consume` ends the call as it is. */
async function attemptOnce<T>(
  transport: Transport,
  call: PreparedCall,
  consume: Consume<T>,
  attempt: { number: number; signal: AbortSignal | undefined; timeoutMs: number; release: Release },
): Promise<AttemptResult<T>> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), attempt.timeoutMs);
  try {
    const signal = attempt.signal
      ? AbortSignal.any([attempt.signal, timeout.signal])
      : timeout.signal;
    const response = await transport.http(call.url, {
      method: call.endpoint.method,
      headers: call.headers,
      body: call.body,
      signal,
    });
    const remaining = transport.governance.observe(response.header);
    if (response.status >= 200 && response.status < 300) {
      return { kind: 'answer', value: await consume(response), status: response.status };
    }
    const text = await readCapped(response.body);
    const retryAfter = response.header('retry-after') ?? null;
    return {
      kind: 'failed',
      failure: { kind: 'status', status: response.status, retryAfter, remaining },
      error: statusError(call, response, text, transport.secrets),
    };
  } catch (caught) {
    if (caught instanceof SvcApiError) throw caught.with({ attempts: attempt.number });
    if (attempt.signal?.aborted) return { kind: 'aborted' };
    const timedOut = timeout.signal.aborted ? attempt.timeoutMs : undefined;
    return noAnswer(call, caught, timedOut, transport.secrets);
  } finally {
    clearTimeout(timer);
    // Every way out of the attempt passes here, so no slot is lost; release() is idempotent.
    attempt.release();
  }
}

/** No response: the per-attempt timeout (`timedOutAfterMs`) or a network error. */
function noAnswer(
  call: PreparedCall,
  caught: unknown,
  timedOutAfterMs: number | undefined,
  secrets: readonly string[],
): AttemptResult<never> {
  const cause = sanitizedCause(caught, secrets);
  const fields = {
    ...errorBase(call),
    status: undefined,
    meaning: undefined,
    retryable: true,
    cause,
  };
  const { operation } = call.endpoint;
  if (timedOutAfterMs !== undefined) {
    return {
      kind: 'failed',
      failure: { kind: 'timeout' },
      error: new SvcApiError({
        ...fields,
        message: `${operation}: no complete answer within ${String(timedOutAfterMs)} ms (timeout)`,
        code: 'TIMEOUT',
      }),
    };
  }
  return {
    kind: 'failed',
    failure: { kind: 'network', sent: !notSent(caught) },
    error: new SvcApiError({
      ...fields,
      message: `${operation}: network error (${cause.message})`,
      code: 'NETWORK',
    }),
  };
}

/** The error of the last attempt, with the attempt count, a known wait and the row's explanation. */
function finalError(
  error: SvcApiError,
  call: PreparedCall,
  attempts: number,
  decision: Extract<RetryDecision, { retry: false }>,
): SvcApiError {
  const retryAfter = decision.retryAfterMs;
  const final = error.with({
    attempts,
    ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
  });
  return explainRefusal(final, call.endpoint);
}

function abortedError(call: PreparedCall, attempts: number): SvcApiError {
  return new SvcApiError({
    ...errorBase(call),
    message: `${call.endpoint.operation}: aborted by the caller`,
    status: undefined,
    code: 'ABORTED',
    meaning: undefined,
    retryable: false,
    attempts,
  });
}

function errorBase(call: PreparedCall) {
  const { operation, method, route } = call.endpoint;
  return { operation, method, route, url: call.redactedUrl };
}

/** The call's debug line: the redacted URL, the time since the call began, the budget left. */
function callLog(transport: Transport, call: PreparedCall): Log {
  const started = performance.now();
  return (fields, message) =>
    transport.logger?.debug(
      {
        operation: call.endpoint.operation,
        method: call.endpoint.method,
        url: call.redactedUrl,
        durationMs: Math.round(performance.now() - started),
        remaining: transport.governance.remaining(),
        ...fields,
      },
      message,
    );
}
