import type { Endpoint } from './endpoint';
import type { SvcApiError } from './svc-api-error';

/**
 * Rewrites a refusal that the failed call's row explains (the job submit, spec §4.3) in user
 * words, with whether and when trying again can help; any other error comes back unchanged.
 */
export function explainRefusal(error: SvcApiError, endpoint: Endpoint): SvcApiError {
  if (error.code === undefined || !Object.hasOwn(endpoint.refusals, error.code)) return error;
  const known = endpoint.refusals[error.code];
  if (!known) return error;
  const platform = error.platformMessage ?? error.meaning;
  return error.with({
    message: platform ? `${known.explanation} (platform: ${platform})` : known.explanation,
    explanation: known.explanation,
    retryable: known.retryable,
    retryAfterMs: known.retryAfterMs,
  });
}
