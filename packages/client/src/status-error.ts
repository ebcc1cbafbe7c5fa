import type { TransportResponse } from './http-transport';
import type { PreparedCall } from './prepare-call';
import { generalMeanings } from './endpoints/error-codes';
import { parseErrorBody } from './parse-error-body';
import { redactText } from './redact-url';
import { SvcApiError } from './svc-api-error';

/**
 * The error of a non-2xx answer: the platform's first code and message, the row's documented
 * meaning of the code, and whether the same call can succeed later (429 and 5xx).
 */
export function statusError(
  call: PreparedCall,
  response: TransportResponse,
  text: string,
  secrets: readonly string[],
): SvcApiError {
  const { endpoint } = call;
  const first = parseErrorBody(text, response.header('content-type')).errors[0];
  const code = first?.code;
  const meaning = code === undefined ? undefined : meaningOf(endpoint.errors, code);
  // The platform fills placeholders with what it was given (§7 rule 1): scrub it like any text.
  const platformMessage =
    first?.message !== undefined ? redactText(first.message, secrets) : undefined;
  const status = response.status;
  return new SvcApiError({
    message:
      platformMessage ??
      `${endpoint.operation} failed with HTTP ${String(status)}${meaning ? ` (${meaning})` : ''}`,
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

/** The row's documented meaning; for a code the row does not list, §7's general one if any. */
function meaningOf(errors: Readonly<Record<string, string>>, code: string): string | undefined {
  if (Object.hasOwn(errors, code)) return errors[code];
  return Object.hasOwn(generalMeanings, code) ? generalMeanings[code] : undefined;
}
