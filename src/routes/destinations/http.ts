import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError } from '../delivery-error';
import { latin1, noLineBreak, uncarriable } from './carriable';
import type { CarriedValue } from './carriable';
import { urlTemplateProblem } from '../literal-url-origin';
import { redactUrlCredentials } from '../redact-url-credentials';
import { renderTemplate } from '../render-template';
import { injectTraceContext } from '../../tracing/inject-trace-context';
import type { DeliveryPreview, Destination } from './destination';
import type { DestinationAdapter } from './destination-adapter';
import { errnoCode } from '../../errno-code';

/** A Standard Webhooks secret: base64 key bytes, optionally prefixed `whsec_` (their spec). */
const WHSEC_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `to: { http: { url, secret?, signing?, signatureHeader?, headers?, timeoutMs? } }` */
export const HttpDestinationOptions = z
  .strictObject({
    // A template may choose the path, never the host the event goes to (literal-url-origin.ts):
    // read as written, before z.url() (which a tab, a backslash or an empty authority could
    // pass or fail for other reasons). The routes file reads `to:` through this schema.
    url: z
      .string()
      .superRefine((url, context) => {
        const problem = urlTemplateProblem(url);
        if (problem !== undefined)
          context.addIssue({ code: 'custom', message: problem, abort: true });
      })
      .pipe(z.url({ protocol: /^https?$/ })),
    /** Signs each body: see `signing`. */
    secret: z.string().min(1).optional(),
    /**
     * `svc`: like the platform signs (spec §6.2 rule 1), so receivers reuse one verifier;
     * `standard-webhooks`: as the Standard Webhooks specification (webhook-id, -timestamp,
     * -signature `v1,<base64>`), for receivers using that ecosystem's verifiers.
     */
    signing: z.enum(['svc', 'standard-webhooks']).default('svc'),
    /** The header of an `svc` signature. */
    signatureHeader: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, 'a header name (letters, digits and -)')
      .transform((name) => name.toLowerCase())
      .default('x-svc-signature'),
    headers: z.record(z.string(), z.string()).optional(),
    timeoutMs: z.number().int().positive().default(10_000),
  })
  .superRefine((options, context) => {
    if (options.signing !== 'standard-webhooks') return;
    const key = options.secret?.startsWith(WHSEC_PREFIX)
      ? options.secret.slice(WHSEC_PREFIX.length)
      : options.secret;
    if (key === undefined || !BASE64.test(key)) {
      const message = 'signing standard-webhooks needs a secret of base64 key bytes (whsec_…)';
      context.addIssue({ code: 'custom', path: ['secret'], message });
    }
  });
export type HttpDestinationOptions = z.infer<typeof HttpDestinationOptions>;

export const httpDestination: DestinationAdapter<HttpDestinationOptions, 'http'> = {
  kind: 'http',
  options: HttpDestinationOptions,
  create: (options, context) => createHttpDestination(options, context.route),
  preview: (options, event, context, body) => previewHttp(options, event, context.route, body),
};

/** The request one event makes: exact body bytes, and the headers that carry its ids. */
function httpRequestOf(
  options: HttpDestinationOptions,
  event: CanonicalEvent,
  route: string,
  shaped?: string,
): { body: string; headers: Record<string, string> } {
  const body = shaped ?? JSON.stringify(event);
  const headers: Record<string, string> = {
    ...renderedHeaders(options.headers, event),
    'content-type': 'application/json',
    'idempotency-key': event.id,
    'x-svc-event-id': event.id,
    'x-svc-event-action': event.action,
    'x-svc-route': route,
  };
  if (options.secret === undefined) return { body, headers };
  if (options.signing === 'standard-webhooks') {
    // Standard Webhooks: HMAC-SHA256 over `<id>.<timestamp>.<body>` with the decoded key; the
    // timestamp is of this attempt, so a retry is not refused as a replay by the receiver.
    const timestamp = String(Math.floor(Date.now() / 1000));
    const key = Buffer.from(options.secret.replace(WHSEC_PREFIX, ''), 'base64');
    const signed = `${event.id}.${timestamp}.${body}`;
    headers['webhook-id'] = event.id;
    headers['webhook-timestamp'] = timestamp;
    headers['webhook-signature'] =
      `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  } else {
    headers[options.signatureHeader] = createHmac('sha256', options.secret)
      .update(body)
      .digest('base64');
  }
  return { body, headers };
}

function renderedHeaders(
  templates: Readonly<Record<string, string>> | undefined,
  event: CanonicalEvent,
): Record<string, string> {
  if (templates === undefined) return {};
  return Object.fromEntries(
    Object.entries(templates).map(([name, value]) => [
      name,
      renderTemplate(value, event, { paths: true }),
    ]),
  );
}

/** The URL of one event: `{field}` templates in its path filled (render-template.ts). */
function httpUrlOf(options: HttpDestinationOptions, event: CanonicalEvent): string {
  return renderTemplate(options.url, event, { paths: true });
}

function previewHttp(
  options: HttpDestinationOptions,
  event: CanonicalEvent,
  route: string,
  shaped?: string,
): DeliveryPreview {
  const { body, headers } = httpRequestOf(options, event, route, shaped);
  if (headers[options.signatureHeader] !== undefined)
    headers[options.signatureHeader] = '(HMAC-SHA256 of the body)';
  if (headers['webhook-signature'] !== undefined)
    headers['webhook-signature'] = 'v1,(HMAC-SHA256 of id.timestamp.body)';
  const target = `POST ${redactUrlCredentials(options.url)}`;
  const address = `POST ${redactUrlCredentials(httpUrlOf(options, event))}`;
  return { kind: 'http', target, address, headers, body };
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
    deliver: async (event, shaped) => {
      const { body, headers } = httpRequestOf(options, event, route, shaped);
      injectTraceContext((key, value) => (headers[key] = value));
      const refused = uncarriable(target, httpValues(headers));
      if (refused !== undefined) throw refused;
      let response: Response;
      try {
        response = await fetch(httpUrlOf(options, event), {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        const timedOut = error instanceof Error && error.name === 'TimeoutError';
        const reason = timedOut
          ? `no answer within ${String(options.timeoutMs)} ms`
          : causeOf(error);
        throw new DeliveryError(`${target}: ${reason}`, {
          retryable: true,
          code: timedOut ? 'timeout' : (causeCodeOf(error) ?? 'network'),
        });
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
        status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    },
    close: () => Promise.resolve(),
  };
}

/** A field value is one line of bytes (RFC 9110 §5.5): fetch refuses anything else, every time. */
function* httpValues(headers: Readonly<Record<string, string>>): Generator<CarriedValue> {
  for (const [name, value] of Object.entries(headers)) {
    yield [`header ${name}`, value, [noLineBreak, latin1]];
  }
}

/** `Retry-After: 120` or an HTTP date; nothing usable → undefined (the backoff decides). */
function retryAfterOf(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The errno of a fetch failure (`ECONNREFUSED`, `UND_ERR_SOCKET`): undici puts it in the cause. */
function causeCodeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'cause' in error
    ? errnoCode(error.cause)
    : undefined;
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
