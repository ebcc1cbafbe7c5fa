import type { z } from 'zod';
import type { Endpoint } from './endpoint';

/** One broken rule: the parameter it concerns and the rule in plain words. */
export interface QueryViolation {
  parameter: string;
  rule: string;
}

export type QueryValidation<T> =
  { ok: true; query: T } | { ok: false; violations: QueryViolation[] };

/**
 * Checks `query` against the row's schema before any network call. On success the parsed query
 * holds only the parameters given (a key whose value is undefined is dropped: absent stays absent,
 * the server applies its defaults). On failure every violation is listed; `request()` throws
 * `SvcParamError` for the first.
 */
export function validateQuery<Q extends z.ZodType>(
  endpoint: Pick<Endpoint<Endpoint['route'], Q>, 'query'>,
  query: unknown,
): QueryValidation<z.output<Q>> {
  const result = endpoint.query.safeParse(query ?? {});
  if (result.success) return { ok: true, query: withoutUndefined(result.data) };
  return { ok: false, violations: result.error.issues.flatMap(violationsOf) };
}

function violationsOf(issue: z.core.$ZodIssue): QueryViolation[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      parameter: key,
      rule: 'is not a parameter of this operation',
    }));
  }
  const [parameter] = issue.path;
  if (parameter === undefined)
    return [{ parameter: '(query)', rule: 'must be an object of parameters' }];
  return [{ parameter: String(parameter), rule: issue.message }];
}

function withoutUndefined<T>(data: T): T {
  if (typeof data !== 'object' || data === null) return data;
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined)) as T;
}
