import type { CanonicalEvent } from './canonical-event';
import { anyKind } from './kinds/any-kind';
import type { EventKind } from './kinds/event-kind';
import { eventKinds } from './kinds/event-kinds';
import { forEachAtPath, forEachKeyAtAnyDepth, isJsonObject } from './kinds/for-each-at-path';
import { PERSON_IDENTIFIER_LISTS, PERSON_VALUE_KEYS } from './kinds/person-keys';

/** What stands where a personal value was embedded in another string. */
export const MASK = '[masked]';

type Json = unknown;
type Visit = (parent: Record<string, Json>, key: string, path: string) => unknown;

/** A kind's personal paths, split once: `**.key` ones are found in one walk of the subject. */
interface PersonalPaths {
  readonly paths: readonly { readonly path: string; readonly names: readonly string[] }[];
  /** `**.key` paths by their key. */
  readonly anyDepth: ReadonlyMap<string, string>;
  readonly anyDepthKeys: ReadonlySet<string>;
}

const compiled = new WeakMap<EventKind, PersonalPaths>();

function personalPathsOf(kind: EventKind): PersonalPaths {
  let found = compiled.get(kind);
  if (found === undefined) {
    const paths: { path: string; names: string[] }[] = [];
    const anyDepth = new Map<string, string>();
    for (const path of kind.personal) {
      const names = path.split('.');
      if (names.length === 2 && names[0] === '**' && names[1] !== undefined) {
        anyDepth.set(names[1], path);
      } else paths.push({ path, names });
    }
    found = { paths, anyDepth, anyDepthKeys: new Set(anyDepth.keys()) };
    compiled.set(kind, found);
  }
  return found;
}

const ANY_KIND_KEYS: ReadonlySet<string> = new Set(anyKind.personalKeys);

/** The kinds whose subject this event carries (normally one). */
function kindsOf(event: CanonicalEvent, kinds: readonly EventKind[]): EventKind[] {
  const root = event as Record<string, Json>;
  return kinds.filter((kind) => isJsonObject(root[kind.subject]));
}

/**
 * The personal strings of a personal field `key`: its text (also in lists); in a field that
 * holds a whole person, the text at the keys that are the person's own (`own`).
 */
function collectPersonal(value: Json, into: Set<string>, key: string, own = true): void {
  if (typeof value === 'string') {
    if (own && value.trim() !== '') into.add(value);
  } else if (Array.isArray(value)) {
    for (const element of value) collectPersonal(element, into, key, own);
  } else if (isJsonObject(value)) {
    for (const [name, child] of Object.entries(value)) {
      const theirs =
        PERSON_VALUE_KEYS.has(name) || (name === 'value' && PERSON_IDENTIFIER_LISTS.has(key));
      collectPersonal(child, into, name, theirs);
    }
  }
}

/**
 * Every (parent, key) of a personal field, with its path: the kinds' paths, and the keys that
 * name a user in any event (their path is the key alone).
 */
function forEachPersonalField(
  event: CanonicalEvent,
  kinds: readonly EventKind[],
  visit: Visit,
): void {
  const root = event as Record<string, Json>;
  for (const kind of kindsOf(event, kinds)) {
    const subject = root[kind.subject];
    const { paths, anyDepth, anyDepthKeys } = personalPathsOf(kind);
    for (const { path, names } of paths) {
      forEachAtPath(subject, names, (parent, key) => visit(parent, key, path));
    }
    if (anyDepth.size > 0) {
      forEachKeyAtAnyDepth(subject, anyDepthKeys, (parent, key) =>
        visit(parent, key, anyDepth.get(key) ?? key),
      );
    }
  }
  forEachKeyAtAnyDepth(root, ANY_KIND_KEYS, (parent, key) => visit(parent, key, key));
}

/**
 * Paths of personal values that identify the person (ids, card numbers, e-mail addresses); a
 * field holding a whole person (`**.user`) is read key by key (`**.user.primary_id`).
 */
const IDENTIFYING_PATH =
  /(?:^|[._])(?:\w+_)?id$|(?:^|\.)user_identifier\.value$|(?:^|\.)email(?:_address)?$/;

/** The identifying strings at or below `value`, found at `path`. */
function collectIds(value: Json, path: string, into: Set<string>): void {
  if (typeof value === 'string') {
    if (value.trim() !== '' && IDENTIFYING_PATH.test(path)) into.add(value);
  } else if (Array.isArray(value)) {
    for (const element of value) collectIds(element, path, into);
  } else if (isJsonObject(value)) {
    for (const [key, child] of Object.entries(value)) collectIds(child, `${path}.${key}`, into);
  }
}

/**
 * The values that identify the person the event is about: its user ids, library card numbers
 * and e-mail addresses. The history keeps them as keyed hashes only (docs/privacy.md).
 */
export function personalIdsOf(
  event: CanonicalEvent,
  kinds: readonly EventKind[] = eventKinds,
): readonly string[] {
  const values = new Set<string>();
  forEachPersonalField(event, kinds, (parent, key, path) => collectIds(parent[key], path, values));
  return [...values];
}

/** Every non-empty string at a personal path of the event (also inside lists), each once. */
export function personalValuesOf(
  event: CanonicalEvent,
  kinds: readonly EventKind[] = eventKinds,
): readonly string[] {
  const values = new Set<string>();
  forEachPersonalField(event, kinds, (parent, key) => collectPersonal(parent[key], values, key));
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
export function personalDataOf(
  event: CanonicalEvent,
  kinds: readonly EventKind[] = eventKinds,
): PersonalData {
  const fields = new Map<object, Set<string>>();
  const values = new Set<string>();
  const ids = new Set<string>();
  forEachPersonalField(event, kinds, (parent, key, path) => {
    const keys = fields.get(parent) ?? new Set<string>();
    keys.add(key);
    fields.set(parent, keys);
    collectPersonal(parent[key], values, key);
    collectIds(parent[key], path, ids);
  });
  const matcher = valueMatcher([...values]);
  return {
    ids: [...ids],
    isPersonalField: (parent, key) => fields.get(parent)?.has(key) ?? false,
    embedsPersonalValue: (text) => text.includes(MASK) || (matcher?.test(text) ?? false),
  };
}

/**
 * An event of a kind about patrons (its subject, or its action when the subject is missing), and
 * any event that names a user.
 */
export function isPatronEvent(
  event: CanonicalEvent,
  kinds: readonly EventKind[] = eventKinds,
): boolean {
  const root = event as Record<string, Json>;
  const about = (kind: EventKind): boolean =>
    isJsonObject(root[kind.subject]) || kind.name === event.action;
  if (kinds.some((kind) => kind.patron && about(kind))) return true;
  return personalValuesOf(event, kinds).length > 0;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Past this length a personal value is looked for as it is, not in the pattern: V8 cannot compile
 * a case-insensitive pattern holding a literal of about 20,000 characters ("Invalid regular
 * expression: Stack overflow"), which made every event with such a value fail where it is read
 * (its history record, a masked route). A value that long is free text: its exact copy is what
 * could leak.
 */
const PATTERN_VALUE_MAX = 1000;

/** Finds and masks an event's personal values in a text. */
interface ValueMatcher {
  test(text: string): boolean;
  mask(text: string): string;
}

/**
 * One case-insensitive pattern over the values, longest first so a value is masked before a part
 * of it; the values past PATTERN_VALUE_MAX (or all, if the pattern cannot be compiled) by exact
 * search, before the pattern.
 */
function valueMatcher(values: readonly string[]): ValueMatcher | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => b.length - a.length);
  let exact = sorted.filter((value) => value.length > PATTERN_VALUE_MAX);
  const short = sorted.filter((value) => value.length <= PATTERN_VALUE_MAX);
  let pattern: RegExp | undefined;
  try {
    if (short.length > 0) pattern = new RegExp(short.map(escapeRegExp).join('|'), 'giu');
  } catch {
    exact = sorted;
  }
  // The pattern without its global flag: a test, not a replacement (no lastIndex kept).
  const test = pattern === undefined ? undefined : new RegExp(pattern.source, 'iu');
  return {
    test: (text) => exact.some((value) => text.includes(value)) || (test?.test(text) ?? false),
    mask: (text) => {
      let masked = text;
      for (const value of exact) masked = masked.split(value).join(MASK);
      return pattern === undefined ? masked : masked.replace(pattern, MASK);
    },
  };
}

/**
 * A copy of `value` without the keys `skip` names on each object, and every string with the
 * personal values replaced by `[masked]`: one walk, copying only what it returns.
 */
function maskedCopy(
  value: Json,
  skip: ReadonlyMap<object, ReadonlySet<string>>,
  matcher: ValueMatcher | undefined,
): Json {
  if (typeof value === 'string') return matcher === undefined ? value : matcher.mask(value);
  if (Array.isArray(value)) return value.map((element) => maskedCopy(element, skip, matcher));
  if (!isJsonObject(value)) return value;
  const dropped = skip.get(value);
  const copy: Record<string, Json> = {};
  for (const key of Object.keys(value)) {
    if (dropped?.has(key) === true) continue;
    const child = maskedCopy(value[key], skip, matcher);
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
export function withoutPersonalData(
  event: CanonicalEvent,
  kinds: readonly EventKind[] = eventKinds,
): CanonicalEvent {
  const values = new Set<string>();
  const skip = new Map<object, Set<string>>();
  forEachPersonalField(event, kinds, (parent, key) => {
    collectPersonal(parent[key], values, key);
    const keys = skip.get(parent);
    if (keys === undefined) skip.set(parent, new Set([key]));
    else keys.add(key);
  });
  return maskedCopy(event, skip, valueMatcher([...values])) as CanonicalEvent;
}

/** `text` with the event's personal values replaced by `[masked]` (a destination's answer, say). */
export function maskPersonalValues(
  text: string,
  event: CanonicalEvent,
  kinds: readonly EventKind[] = eventKinds,
): string {
  return maskValuesIn(text, personalValuesOf(event, kinds));
}

/** `text` with each of `values` replaced by `[masked]`, longest first, regardless of case. */
export function maskValuesIn(text: string, values: readonly string[]): string {
  const matcher = valueMatcher(values);
  return matcher === undefined ? text : matcher.mask(text);
}
