/**
 * The start of an HTTP URL as a strict reader sees it: scheme, `//`, optional user info, a host
 * name or bracketed IPv6 address, optional port — each of plain characters only (no `%`, `\`,
 * spaces, tabs, line breaks, braces) — then the path, query or fragment.
 */
const LITERAL_ORIGIN =
  /^https?:\/\/(?:[A-Za-z0-9._~!$&'()*+,;=:-]+@)?(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?[/?#]/i;

/**
 * Why a URL with templates (`{field}`) might let an event choose where it goes, or undefined.
 * URL parsers disagree on odd forms — `http:///{id}/x` (WHATWG skips the empty authority and
 * reads `{id}` as the host), `http:{id}`, backslashes, tabs and line breaks they strip,
 * percent-encoding in a host — so a URL with a template must open with an origin written out in
 * plain characters and ended by `/`, `?` or `#` before its first brace. A URL with no template
 * is only ever what the routes file says.
 */
export function urlTemplateProblem(url: string): string | undefined {
  if (!url.includes('{') && !url.includes('}')) return undefined;
  const origin = LITERAL_ORIGIN.exec(url)?.[0];
  if (origin !== undefined && !/[{}]/.test(origin)) return undefined;
  return (
    'templates ({field}) only in the path or query: the scheme, user, host and port must be ' +
    'written out in plain characters, ending with / ? or # before the first template'
  );
}
