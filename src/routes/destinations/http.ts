import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError } from '../delivery-error';
import { redactUrlCredentials } from '../redact-url-credentials';
import { injectTraceContext } from '../../tracing/inject-trace-context';
import type { DeliveryPreview, Destination } from './destination';

/** `to: { http: { url, secret?, headers?, timeoutMs? } }` */
export const HttpDestinationOptions = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** Signs each body like the platform does (spec §6.2 rule 1): receivers reuse one verifier. */
  secret: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  timeoutMs: z.number().int().positive().default(10_000),
});
export type HttpDestinationOptions = z.infer<typeof HttpDestinationOptions>;

/** The request one event makes: exact body bytes, and the headers that carry its ids. */
export function httpRequestOf(
  options: HttpDestinationOptions,
  event: CanonicalEvent,
  route: string,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  const headers: Record<string, string> = {
    ...options.headers,
    'content-type': 'application/json',
    'idempotency-key': event.id,
    'x-svc-event-id': event.id,
    'x-svc-event-action': event.action,
    'x-svc-route': route,
  };
  if (options.secret !== undefined) {
    headers['x-svc-signature'] = createHmac('sha256', options.secret).update(body).digest('base64');
  }
  return { body, headers };
}

export function previewHttp(
  options: HttpDestinationOptions,
  event: CanonicalEvent,
  route: string,
): DeliveryPreview {
  const { body, headers } = httpRequestOf(options, event, route);
  if (headers['x-svc-signature'] !== undefined)
    headers['x-svc-signature'] = '(HMAC-SHA256 of the body)';
  const target = `POST ${redactUrlCredentials(options.url)}`;
  return { kind: 'http', target, address: target, headers, body };
}

/**
 * POSTs the canonical event as JSON. 2xx is delivered; 408, 429 (with its `Retry-After`), 5xx,
 * timeouts and network errors may pass later; any other status is the receiver refusing this
 * event, which a retry would not change.
 */
export function createHttpDestination(options: HttpDestinationOptions, route: string): Destination {
  const target = `POST ${redactUrlCredentials(options.url)}`;
  return {
    kind: 'http',
    target,
    deliver: async (event) => {
      const { body, headers } = httpRequestOf(options, event, route);
      injectTraceContext((key, value) => (headers[key] = value));
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        const reason =
          error instanceof Error && error.name === 'TimeoutError'
            ? `no answer within ${String(options.timeoutMs)} ms`
            : causeOf(error);
        throw new DeliveryError(`${target}: ${reason}`, { retryable: true });
      }
      // The body is not used; reading it lets the connection be reused.
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) return;
      const status = response.status;
      const retryable = status === 408 || status === 429 || status >= 500;
      const retryAfterMs =
        status === 429 ? retryAfterOf(response.headers.get('retry-after')) : undefined;
      throw new DeliveryError(`${target}: HTTP ${String(status)}`, {
        retryable,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    },
    close: () => Promise.resolve(),
  };
}

/** `Retry-After: 120` or an HTTP date; nothing usable → undefined (the backoff decides). */
function retryAfterOf(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** undici says `fetch failed`; the reason (ECONNREFUSED, …) is in its cause. No URL is in it. */
function causeOf(error: unknown): string {
  const cause =
    typeof error === 'object' && error !== null && 'cause' in error ? error.cause : undefined;
  // Duck-typed: the cause may come from another realm (undici's), where instanceof Error fails.
  if (typeof cause === 'object' && cause !== null) {
    const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
    const message =
      'message' in cause && typeof cause.message === 'string' ? cause.message : undefined;
    const text = code ?? message;
    if (text !== undefined) return redactUrlCredentials(text);
  }
  return redactUrlCredentials(error instanceof Error ? error.message : String(error));
}
