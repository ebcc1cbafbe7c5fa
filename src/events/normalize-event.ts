import { CanonicalEvent } from './canonical-event';
import type { EventMeta } from './canonical-event';
import { InvalidEventError } from './invalid-event-error';

/**
 * Fields that are platform code values, `{value, desc?}` in JSON. A bare string in either format
 * becomes `{value}`, so `<status>DONE</status>` and `"status": {"value": "DONE"}` agree.
 */
const CODE_FIELDS = new Set([
  'institution',
  'event',
  'status',
  'type',
  'category',
  'submitted_by',
  'alert',
]);

/** Keys whose value is a list in the JSON form (below the root): one element still makes an array. */
const LIST_FIELDS = new Set(['counter', 'alert', 'action']);

/** job_end fields the JSON form carries as numbers (`progress` may be 100.3). */
const NUMBER_FIELDS = new Set(['progress']);

/** Keys that would reach an object's prototype if copied by assignment anywhere downstream. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A parsed body (the JSON form, or XML already turned into it) → the canonical event (issue 2,
 * ingress 4). Nulls, empty strings and empty lists are dropped, code fields become `{value, desc?}`,
 * lists are arrays, `action` is lower-cased. Throws InvalidEventError naming the field at fault.
 */
export function normalizeEvent(body: unknown, meta?: EventMeta): CanonicalEvent {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidEventError('body must be an object with id, action and time');
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body)) {
    if (UNSAFE_KEYS.has(key) || key === 'meta') continue;
    const value = (body as Record<string, unknown>)[key];
    const normalized = key === 'id' || key === 'action' ? rootScalar(value) : normalize(key, value);
    if (normalized !== undefined) out[key] = normalized;
  }
  if (typeof out.action === 'string') out.action = out.action.toLowerCase();
  if (meta) out.meta = meta;

  const parsed = CanonicalEvent.safeParse(out);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') || '(body)';
    const missing = issue?.code === 'invalid_type' && out[field] === undefined;
    throw new InvalidEventError(
      missing ? `${field} is missing` : `${field} is invalid: ${issue?.message ?? 'invalid'}`,
      field,
    );
  }
  return parsed.data;
}

/** `id` may come as a number from a lenient JSON writer; it is a string in the event. */
function rootScalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** `inList`: the value is an element of an array already, so it is not wrapped in one again. */
function normalize(key: string, value: unknown, inList = false): Json | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const asList = LIST_FIELDS.has(key) && !inList;
  if (Array.isArray(value)) {
    const items: Json[] = [];
    for (const item of value as unknown[]) {
      const normalized = normalize(key, item, true);
      if (normalized !== undefined) items.push(normalized);
    }
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'object') {
    const object = normalizeObject(value as Record<string, unknown>);
    if (object === undefined) return undefined;
    return asList ? [object] : object;
  }
  if (typeof value === 'string') {
    if (CODE_FIELDS.has(key)) return asList ? [{ value }] : { value };
    if (NUMBER_FIELDS.has(key)) {
      const number = Number(value);
      return Number.isFinite(number) && value.trim() !== '' ? number : value;
    }
    return value;
  }
  if (typeof value === 'number') {
    // A counter's `value` is a string, as the platform sends it; a code's value is a string too.
    return key === 'value' ? String(value) : value;
  }
  if (typeof value === 'boolean') return value;
  return undefined;
}

function normalizeObject(value: Record<string, unknown>): { [key: string]: Json } | undefined {
  // Runs for every object of every delivery: no per-key allocations.
  const out: { [key: string]: Json } = {};
  let empty = true;
  for (const key of Object.keys(value)) {
    if (UNSAFE_KEYS.has(key)) continue;
    const normalized = normalize(key, value[key]);
    if (normalized !== undefined) {
      out[key] = normalized;
      empty = false;
    }
  }
  return empty ? undefined : out;
}
