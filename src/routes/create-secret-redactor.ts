import { redactUrlCredentials } from './redact-url-credentials';

/** Text of a route (a target, an error, a preview) with its secrets shown as `***`. */
export type RedactSecrets = (text: string) => string;

/**
 * The shortest substituted value masked. A shorter one (a port like `80`, a flag, a count) is no
 * secret, and masking every `1` would leave a reason unreadable.
 */
export const SHORTEST_SECRET = 4;

/**
 * Masks every value substituted into the routes file (substitute-env.ts) — in the form written
 * and as it reads once percent- or JSON-escaped, in any case (a URL parser lower-cases a host) —
 * and a URL's password (redact-url-credentials.ts). Built once at start-up from the file's values
 * and passed to whatever turns a route into text that leaves the process: a destination's target
 * and its errors (so log lines, spans, Redis failed reasons, the history and the route figures),
 * `routes test` and the listings of the CLI and the console. Costs nothing per event: only
 * failures and displays pass through it.
 */
export function createSecretRedactor(values: Iterable<string>): RedactSecrets {
  const forms = new Set<string>();
  for (const value of values) {
    if (value.length < SHORTEST_SECRET) continue;
    forms.add(value);
    forms.add(encodeURIComponent(value));
    forms.add(encodeURI(value));
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  if (forms.size === 0) return redactUrlCredentials;
  // Longest first: a secret that holds another is masked whole, not around the shorter one.
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(alternatives.join('|'), 'gi');
  return (text) => redactUrlCredentials(text.replace(pattern, '***'));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
