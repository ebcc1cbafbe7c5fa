import type { CanonicalEvent } from './canonical-event';
import type { EventKind } from './kinds/event-kind';
import { eventKinds } from './kinds/event-kinds';

/** What stands where a personal value was embedded in another string. */
export const MASK = '[masked]';

/** Kinds whose every event is about a patron, whatever it carries (a deleted user has `user: {}`). */
const PATRON_KINDS: ReadonlySet<string> = new Set(['loan', 'request', 'user', 'notification']);

/**
 * Keys that name a user wherever they appear, in any kind (also one this listener does not know):
 * an event carrying one is a patron event.
 */
const USER_KEYS: ReadonlySet<string> = new Set(['user_id', 'user_primary_id', 'patron_id']);

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The kinds whose subject this event carries (normally one). */
function kindsOf(event: CanonicalEvent): EventKind[] {
  const root = event as Record<string, Json>;
  return eventKinds.filter((kind) => isObject(root[kind.subject]));
}

/** Every string at or below `value` (lists and objects walked whole). */
function collectStrings(value: Json, into: Set<string>): void {
  if (typeof value === 'string') {
    if (value.trim() !== '') into.add(value);
  } else if (Array.isArray(value)) {
    for (const element of value) collectStrings(element, into);
  } else if (isObject(value)) {
    for (const child of Object.values(value)) collectStrings(child, into);
  }
}

/** Calls `visit(parent, key)` for every object holding the last key of `path`, through lists. */
function forEachAtPath(
  value: Json,
  path: readonly string[],
  visit: (parent: Record<string, Json>, key: string) => unknown,
): void {
  if (Array.isArray(value)) {
    for (const element of value) forEachAtPath(element, path, visit);
    return;
  }
  const [head, ...rest] = path;
  if (!isObject(value) || head === undefined || !Object.hasOwn(value, head)) return;
  if (rest.length === 0) visit(value, head);
  else forEachAtPath(value[head], rest, visit);
}

/**
 * Every (parent, key) of a personal field, with its path: the kinds' paths, and user keys at any
 * depth (their path is the key alone).
 */
function forEachPersonalField(
  event: CanonicalEvent,
  visit: (parent: Record<string, Json>, key: string, path: string) => unknown,
): void {
  const root = event as Record<string, Json>;
  for (const kind of kindsOf(event)) {
    for (const path of kind.personal) {
      forEachAtPath(root[kind.subject], path.split('.'), (parent, key) => visit(parent, key, path));
    }
  }
  const walk = (value: Json): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (USER_KEYS.has(key)) visit(value, key, key);
        else walk(child);
      }
    }
  };
  walk(root);
}

/** Paths of personal fields that identify the person (ids, card numbers, e-mail addresses). */
const IDENTIFYING_PATH = /(?:^|[._])(?:\w+_)?id$|(?:^|\.)user_identifier\.value$|email_address$/;

/**
 * The values that identify the person the event is about: its user ids, library card numbers
 * and e-mail addresses. The history keeps them as keyed hashes only (docs/privacy.md).
 */
export function personalIdsOf(event: CanonicalEvent): readonly string[] {
  const values = new Set<string>();
  forEachPersonalField(event, (parent, key, path) => {
    if (IDENTIFYING_PATH.test(path)) collectStrings(parent[key], values);
  });
  return [...values];
}

/** Every non-empty string at a personal path of the event (also inside lists), each once. */
export function personalValuesOf(event: CanonicalEvent): readonly string[] {
  const values = new Set<string>();
  forEachPersonalField(event, (parent, key) => collectStrings(parent[key], values));
  return [...values];
}

/** Where one event's personal data is, found in one pass (the history reads it for every event). */
export interface PersonalData {
  /** What personalIdsOf gives. */
  readonly ids: readonly string[];
  /** Whether `parent[key]` is a personal field (withoutPersonalData removes it). */
  isPersonalField(parent: object, key: string): boolean;
  /** Whether withoutPersonalData would leave `text` masked: it embeds a personal value, or a mask. */
  embedsPersonalValue(text: string): boolean;
}

/** The event's personal fields and values, without copying or masking the event. */
export function personalDataOf(event: CanonicalEvent): PersonalData {
  const fields = new Map<object, Set<string>>();
  const values = new Set<string>();
  const ids = new Set<string>();
  forEachPersonalField(event, (parent, key, path) => {
    const keys = fields.get(parent) ?? new Set<string>();
    keys.add(key);
    fields.set(parent, keys);
    collectStrings(parent[key], values);
    if (IDENTIFYING_PATH.test(path)) collectStrings(parent[key], ids);
  });
  // The masking pattern without its global flag: a test, not a replacement.
  const pattern = maskPattern([...values]);
  const test = pattern === undefined ? undefined : new RegExp(pattern.source, 'iu');
  return {
    ids: [...ids],
    isPersonalField: (parent, key) => fields.get(parent)?.has(key) ?? false,
    embedsPersonalValue: (text) => text.includes(MASK) || (test?.test(text) ?? false),
  };
}

/** Loan, request, user and notification events, and any event whose subject names a user. */
export function isPatronEvent(event: CanonicalEvent): boolean {
  if (kindsOf(event).some((kind) => PATRON_KINDS.has(kind.name))) return true;
  if (PATRON_KINDS.has(event.action)) return true;
  return personalValuesOf(event).length > 0;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One pattern over every value, longest first so a value is masked before a part of it. */
function maskPattern(values: readonly string[]): RegExp | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(sorted.join('|'), 'giu');
}

/**
 * A copy of `value` without the keys `skip` names on each object, and every string with the
 * pattern's matches replaced by `[masked]`: one walk, copying only what it returns.
 */
function maskedCopy(
  value: Json,
  skip: ReadonlyMap<object, ReadonlySet<string>>,
  pattern: RegExp | undefined,
): Json {
  if (typeof value === 'string')
    return pattern === undefined ? value : value.replace(pattern, MASK);
  if (Array.isArray(value)) return value.map((element) => maskedCopy(element, skip, pattern));
  if (!isObject(value)) return value;
  const dropped = skip.get(value);
  const copy: Record<string, Json> = {};
  for (const key of Object.keys(value)) {
    if (dropped?.has(key) === true) continue;
    const child = maskedCopy(value[key], skip, pattern);
    // An own `__proto__` key (JSON.parse makes one) stays a key, as in the event.
    if (key === '__proto__')
      Object.defineProperty(copy, key, {
        value: child,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = child;
  }
  return copy;
}

/**
 * A copy of the event with every personal field removed, and every other string that embeds
 * a personal value (a link `/users/<id>/loans/<id>`, an operator id that is the patron's id) with
 * that value replaced by `[masked]`, matched without regard to case. The personal fields are
 * found once, on the event itself; the copy is made in the same walk that masks.
 */
export function withoutPersonalData(event: CanonicalEvent): CanonicalEvent {
  const values = new Set<string>();
  const skip = new Map<object, Set<string>>();
  forEachPersonalField(event, (parent, key) => {
    collectStrings(parent[key], values);
    const keys = skip.get(parent);
    if (keys === undefined) skip.set(parent, new Set([key]));
    else keys.add(key);
  });
  return maskedCopy(event, skip, maskPattern([...values])) as CanonicalEvent;
}

/** `text` with the event's personal values replaced by `[masked]` (a destination's answer, say). */
export function maskPersonalValues(text: string, event: CanonicalEvent): string {
  const pattern = maskPattern(personalValuesOf(event));
  return pattern === undefined ? text : text.replace(pattern, MASK);
}
