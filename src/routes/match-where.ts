import { RE2JS } from 're2js';
import { z } from 'zod';
import type { CanonicalEvent } from '../events/canonical-event';
import { isRecord } from '../is-record';
import { valuesAtPath } from './values-at-path';

/** Longest `regex:` accepted; RE2 runs in time linear in the value, so values need no cap. */
const WHERE_REGEX_MAX_LENGTH = 256;

/** `item_loan.library.value`: names of letters, digits and `_`, joined by dots. */
export const EVENT_PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const OneOf = z.array(Scalar).min(1, 'at least one value');

/**
 * One condition of `match.where:` — a list (one of these values), or exactly one of `in`,
 * `exists`, `prefix`, `regex`. Regular expressions run on RE2 (re2js: linear time, no
 * backtracking), so a pattern in the routes file cannot stall a worker on a crafted value.
 */
export const WhereCondition = z.union([
  OneOf,
  z.strictObject({ in: OneOf }),
  z.strictObject({ exists: z.boolean() }),
  z.strictObject({ prefix: z.string().min(1) }),
  z.strictObject({
    regex: z
      .string()
      .min(1)
      .max(WHERE_REGEX_MAX_LENGTH)
      .superRefine((pattern, context) => {
        const problem = regexProblemOf(pattern);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      }),
  }),
]);
export type WhereCondition = z.infer<typeof WhereCondition>;

/** One condition ready to test: its path, as written, and its predicate over the path's values. */
export interface WhereClause {
  readonly path: string;
  readonly condition: WhereCondition;
  readonly test: (event: CanonicalEvent) => boolean;
}

/** `where:` — path → condition; the paths are checked here so a typo stops the start. */
export const RouteWhere = z
  .record(z.string(), WhereCondition)
  .superRefine((where, context) => {
    for (const path of Object.keys(where)) {
      if (!EVENT_PATH.test(path)) {
        const message = 'a path of the event (names joined by dots, e.g. bib.mms_id)';
        context.addIssue({ code: 'custom', path: [path], message });
      }
    }
  })
  .transform((where) =>
    Object.entries(where).map(([path, condition]) => whereClauseOf(path, condition)),
  );
export type RouteWhere = z.infer<typeof RouteWhere>;

/** Every clause holds (an empty `where:` holds for every event). */
export function matchesWhere(clauses: readonly WhereClause[], event: CanonicalEvent): boolean {
  return clauses.every((clause) => clause.test(event));
}

/**
 * A path reaches any number of values: lists along it are walked, so `notes.type: [X]` holds when
 * any note's type is X. Only strings, numbers and booleans compare; other objects and null do
 * not. The platform's value objects (`{ value, desc }`, `{ value, link }`, as in
 * docs/canonical-event.md) are read as their `value`, so `item_loan.request_id` means what
 * `item_loan.request_id.value` does.
 */
function whereClauseOf(path: string, condition: WhereCondition): WhereClause {
  const segments = path.split('.');
  const valuesOf = (event: CanonicalEvent): string[] =>
    valuesAtPath(event, segments).flatMap(comparableOf);
  const test = predicateOf(condition);
  return { path, condition, test: (event) => test(valuesOf(event)) };
}

/**
 * A value as the conditions compare it: a scalar as text, a value object as its `value` — where
 * an empty or null `value` is no value (the platform sends `{ "value": "" }` for "none").
 */
function comparableOf(value: unknown): string[] {
  if (isRecord(value) && Object.hasOwn(value, 'value')) {
    const inner = value.value;
    return isScalar(inner) && inner !== '' ? [String(inner)] : [];
  }
  return isScalar(value) ? [String(value)] : [];
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function predicateOf(condition: WhereCondition): (values: readonly string[]) => boolean {
  if (Array.isArray(condition) || 'in' in condition) {
    const allowed = new Set((Array.isArray(condition) ? condition : condition.in).map(String));
    return (values) => values.some((value) => allowed.has(value));
  }
  if ('exists' in condition) {
    const wanted = condition.exists;
    return (values) => values.length > 0 === wanted;
  }
  if ('prefix' in condition) {
    const prefix = condition.prefix;
    return (values) => values.some((value) => value.startsWith(prefix));
  }
  const regex = RE2JS.compile(condition.regex);
  return (values) => values.some((value) => regex.matcher(value).find());
}

/**
 * Why RE2 refuses a pattern (a backreference, a lookahead, a syntax error), or undefined. Only
 * RE2's kind of error is named: its message quotes the pattern, and no value goes in a message.
 */
function regexProblemOf(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    const kind =
      typeof error === 'object' &&
      error !== null &&
      'error' in error &&
      typeof error.error === 'string'
        ? error.error
        : 'a syntax error';
    return `not a regular expression RE2 accepts (${kind})`;
  }
}
