import { safeParseCanonicalEvent } from './canonical-event';
import type { CanonicalEvent } from './canonical-event';
import type { EventMeta } from './canonical-event';
import { InvalidEventError } from './invalid-event-error';
import { rootFieldRules } from './kinds/event-kinds';
import { FieldFlag } from './kinds/field-rules';
import type { FieldRules } from './kinds/field-rules';
import { MAX_NESTING_DEPTH } from './max-nesting-depth';
import { UNSAFE_KEYS } from './unsafe-keys';

// Module constants, not property reads of imports: this runs for every key of every delivery.
const CODE = FieldFlag.code;
const NUMBER = FieldFlag.number;
const LIST = FieldFlag.list;
const STRING = FieldFlag.string;
const BOOLEAN = FieldFlag.boolean;
const MAX_DEPTH = MAX_NESTING_DEPTH;

/** A JSON number as text; `Number()` alone would also take "", " ", "0x10" and "Infinity". */
const NUMERIC = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

type Json = boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A parsed body (the JSON form, or XML already turned into it) → the canonical event: what the
 * platform sent, except that `action` is trimmed and lower-cased, `meta` is added, keys that reach
 * a prototype and null scalars are dropped, and the fields of known positions take their JSON
 * type (codes, numbers, strings, booleans, lists: `kinds/`). Objects and lists are kept, even
 * empty. Knows no kind: the rules are data. Throws InvalidEventError naming the field at fault.
 */
export function normalizeEvent(
  body: unknown,
  meta?: EventMeta,
  rules: FieldRules = rootFieldRules,
): CanonicalEvent {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidEventError('body must be an object with id, action and time');
  }
  const source = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (UNSAFE_KEYS.has(key) || key === 'meta') continue;
    const value = source[key];
    const normalized =
      key === 'id' || key === 'action' || key === 'time'
        ? rootScalar(key, value)
        : normalizeValue(key, value, rules, 1);
    if (normalized !== undefined) out[key] = normalized;
  }
  if (typeof out.action === 'string') out.action = out.action.trim().toLowerCase();
  if (meta) out.meta = meta;
  return validated(out);
}

function validated(out: Record<string, unknown>): CanonicalEvent {
  const parsed = safeParseCanonicalEvent(out);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.') || '(body)';
  const missing = issue?.code === 'invalid_type' && out[field] === undefined;
  throw new InvalidEventError(
    missing ? `${field} is missing` : `${field} is invalid: ${issue?.message ?? 'invalid'}`,
    field,
  );
}

/**
 * `id`, `action`, `time`: a blank string is a missing one; a value of another type is left for the
 * schema to name. A numeric `id` (from a caller that parsed the JSON itself; parseJsonEvent hands
 * over its exact digits as a string) is its string only while a double holds it exactly: two ids
 * must never become one.
 */
function rootScalar(key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (key === 'id' && typeof value === 'number' && Number.isSafeInteger(value)) {
    return String(value);
  }
  return value ?? undefined;
}

/** `rules`: those of the object that holds `key`, or undefined at a position no kind describes. */
function normalizeValue(
  key: string,
  value: unknown,
  rules: FieldRules | undefined,
  depth: number,
): Json | undefined {
  if (value === null || value === undefined) return undefined;
  const flags = rules === undefined ? 0 : (rules.flags.get(key) ?? 0);
  if (Array.isArray(value)) return normalizeList(key, value as unknown[], flags, rules, depth);
  const one = normalizeOne(key, value, flags, rules, depth);
  return one !== undefined && (flags & LIST) !== 0 ? [one] : one;
}

function normalizeList(
  key: string,
  list: unknown[],
  flags: number,
  rules: FieldRules | undefined,
  depth: number,
): Json[] {
  if (depth >= MAX_DEPTH) throw tooDeep();
  const items: Json[] = [];
  for (const item of list) {
    if (item === null || item === undefined) continue;
    const normalized = Array.isArray(item)
      ? normalizeList(key, item as unknown[], 0, undefined, depth + 1)
      : normalizeOne(key, item, flags, rules, depth + 1);
    if (normalized !== undefined) items.push(normalized);
  }
  return items;
}

/** One value that is not an array, at `key` of an object whose rules are `rules`. */
function normalizeOne(
  key: string,
  value: unknown,
  flags: number,
  rules: FieldRules | undefined,
  depth: number,
): Json | undefined {
  switch (typeof value) {
    case 'object':
      return normalizeObject(value as Record<string, unknown>, rules?.objects.get(key), depth + 1);
    case 'string':
      if (flags === 0) return value;
      if ((flags & CODE) !== 0) return { value };
      if ((flags & NUMBER) !== 0 && NUMERIC.test(value)) return Number(value);
      if ((flags & BOOLEAN) !== 0 && (value === 'true' || value === 'false')) {
        return value === 'true';
      }
      return value;
    case 'number':
      if (!Number.isFinite(value)) return undefined;
      return (flags & STRING) !== 0 ? String(value) : value;
    case 'boolean':
      return value;
    default:
      return undefined;
  }
}

function normalizeObject(
  value: Record<string, unknown>,
  rules: FieldRules | undefined,
  depth: number,
): { [key: string]: Json } {
  if (depth > MAX_DEPTH) throw tooDeep();
  // Runs for every object of every delivery: no per-key allocations.
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value)) {
    if (UNSAFE_KEYS.has(key)) continue;
    const normalized = normalizeValue(key, value[key], rules, depth);
    if (normalized !== undefined) out[key] = normalized;
  }
  return out;
}

function tooDeep(): InvalidEventError {
  return new InvalidEventError(`body is nested deeper than ${MAX_NESTING_DEPTH} levels`);
}
