/** The version prefix every path sits under (spec §9 rule 1). */
const API_PREFIX = '/svcws/v1';

/**
 * `{base}/svcws/v1{path}` with `{name}` placeholders filled URL-encoded, the query appended and
 * `apikey` last (spec §5 rule 1). The path is otherwise kept as the spec writes it, trailing slash
 * included (`/acq/invoices/`). A placeholder without a value throws: the caller checks first.
 */
export function buildUrl(
  baseUrl: string,
  path: string,
  pathParams: Readonly<Record<string, string>>,
  query: Readonly<Record<string, unknown>>,
  apiKey: string,
): URL {
  const filled = path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = pathParams[name];
    if (value === undefined) throw new RangeError(`path parameter ${name} has no value`);
    return encodeURIComponent(value);
  });
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${API_PREFIX}${filled}`);
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const text = queryText(item);
      if (text !== undefined) url.searchParams.append(name, text);
    }
  }
  url.searchParams.set('apikey', apiKey);
  return url;
}

function queryText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  return undefined;
}

/** The names of a path's `{name}` placeholders, in order. */
export function placeholdersOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}
