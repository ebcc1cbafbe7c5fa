/**
 * The API key travels in the query string (spec §5 rule 1), so every URL the client builds carries
 * it. These functions are the only way a URL or a foreign error text leaves the client: errors and
 * log lines see their output, never the input (a key in a log is a key leaked).
 */

const REDACTED = '[redacted]';

/** `apikey=…` in any letter case, up to the next `&`, `#`, quote, whitespace or end. */
const APIKEY_IN_TEXT = /(apikey=)[^&#\s"'<>]*/gi;

/** Replaces the value of every `apikey` query parameter (any letter case) with `[redacted]`. */
export function redactUrl(url: string | URL): string {
  const text = typeof url === 'string' ? url : url.href;
  return text.replace(APIKEY_IN_TEXT, `$1${REDACTED}`);
}

/**
 * Scrubs free text (an error message from undici, a stack) of `apikey=` values and of the literal
 * secrets given, wherever they stand: a URL-encoded copy of the key is caught as well.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let result = redactUrl(text);
  for (const secret of secrets) {
    if (secret === '') continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      result = result.split(form).join(REDACTED);
    }
  }
  return result;
}
