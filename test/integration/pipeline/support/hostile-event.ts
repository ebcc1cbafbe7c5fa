import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { MAX_NESTING_DEPTH } from '../../../../src/events/max-nesting-depth';
import { FIXTURE_KINDS, FIXTURE_OF_KIND } from '../../../helpers/fixture-events';
import type { FixtureKind } from '../../../helpers/fixture-events';

/** Strings no part of the pipeline may choke on (each one a way a sender broke something once). */
const HOSTILE_STRINGS: readonly string[] = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\r\n',
  'line\r\nX-Forged: 1',
  '\u2028\u2029',
  '\u0085\u007f\u001b[31m',
  '€ 東京 😀',
  'x'.repeat(64 * 1024),
  '\ud83d'.repeat(1024),
  '{"a":"b"}',
  '<x>&amp;</x>',
  '',
];

/** Number literals at the edges of exactness, written into the body as they are. */
const EDGE_NUMBERS: readonly string[] = [
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '1e308',
  '-1e308',
  '1e309',
  '-0',
  '0.1',
  '5e-324',
  '1'.repeat(1000),
  `0.${'3'.repeat(400)}e-400`,
];

/** Keys that mean something to JavaScript objects. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Where an event's `id` lands against the key bound (255 UTF-8 bytes, no control characters). */
export type IdShape =
  | 'at-bound'
  | 'past-bound'
  | 'multibyte-at-bound'
  | 'multibyte-past-bound'
  | 'control'
  | 'lone-surrogate'
  | 'line-separator'
  | 'number';

export type Mutation =
  | { kind: 'string'; pick: number; value: string }
  | { kind: 'number'; pick: number; literal: string }
  | { kind: 'key'; key: string; value: string }
  | { kind: 'nesting'; depth: number }
  | { kind: 'id'; shape: IdShape };

/** One generated delivery: a fixture of one of the seven kinds, in JSON or XML, made hostile. */
export interface HostileCase {
  readonly kind: FixtureKind;
  readonly format: 'json' | 'xml';
  readonly mutations: readonly Mutation[];
}

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ maxLength: 8 }))
      .map(([hostile, plain]) => `${plain}${hostile}${plain}`),
  },
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('string' as const),
      pick: fc.nat(),
      value: hostileString,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('number' as const),
      pick: fc.nat(),
      literal: fc.constantFrom(...EDGE_NUMBERS),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('key' as const),
      key: fc.constantFrom(...PROTOTYPE_KEYS),
      value: hostileString,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('nesting' as const),
      depth: fc.integer({ min: MAX_NESTING_DEPTH - 3, max: MAX_NESTING_DEPTH + 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('id' as const),
      shape: fc.constantFrom<IdShape>(
        'at-bound',
        'past-bound',
        'multibyte-at-bound',
        'multibyte-past-bound',
        'control',
        'lone-surrogate',
        'line-separator',
        'number',
      ),
    }),
  },
);

export const hostileCase: fc.Arbitrary<HostileCase> = fc.record({
  kind: fc.constantFrom(...FIXTURE_KINDS),
  format: fc.constantFrom('json' as const, 'xml' as const),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
});

const FIXTURES = join(__dirname, '../../../fixtures/events');

/** The job instance of the job_end fixture: a worker takes each instance up once (job-end-once.ts). */
const FIXTURE_INSTANCE = '5871043560000561';

/** The fixture's text, its job instance (job_end) made `instance` so no two deliveries share one. */
function fixtureText(kind: FixtureKind, format: 'json' | 'xml', instance: string): string {
  const file = FIXTURE_OF_KIND[kind].replace(/\.json$/, `.${format}`);
  return readFileSync(join(FIXTURES, file), 'utf8').replaceAll(FIXTURE_INSTANCE, instance);
}

/** Digits only, unique per delivery (an instance id is a number on the platform). */
const instanceOf = (unique: string): string => `58710435${unique.replace(/\D/g, '')}`;

/** `base` padded with `pad` to exactly `bytes` UTF-8 bytes (pad is 1 or 2 bytes wide). */
function padTo(base: string, pad: string, bytes: number): string {
  let text = base;
  while (Buffer.byteLength(text) + Buffer.byteLength(pad) <= bytes) text += pad;
  while (Buffer.byteLength(text) < bytes) text += '0';
  return text;
}

/** The id an id mutation gives; `unique` keeps each delivery apart from the others. */
function shapedId(shape: IdShape, unique: string): string {
  switch (shape) {
    case 'at-bound':
      return padTo(unique, '7', 255);
    case 'past-bound':
      return padTo(unique, '7', 256);
    case 'multibyte-at-bound':
      return padTo(unique, 'é', 255);
    case 'multibyte-past-bound':
      return padTo(unique, 'é', 257);
    case 'control':
      return `${unique}\r\nX-Forged: 1`;
    case 'lone-surrogate':
      return `${unique}\ud800`;
    case 'line-separator':
      return `${unique}\u2028`;
    case 'number':
      // Digits past 2^53, kept exact as text: unique by the serial at the end of `unique`.
      return `900719925474099300${unique.replace(/\D/g, '')}`;
  }
}

/** A placeholder a raw number literal replaces after serialization. */
const numberMark = (index: number): string => `@@fuzz-number-${String(index)}@@`;

export interface HostileDelivery {
  readonly body: Buffer;
  readonly contentType: string;
  /** The id the body carries when the listener takes it as sent. */
  readonly id: string;
}

/** The signed body of one case: its fixture, its id made `unique`, the mutations applied. */
export function hostileDelivery(hostile: HostileCase, unique: string): HostileDelivery {
  const idMutation = hostile.mutations.find((one) => one.kind === 'id');
  const id = idMutation === undefined ? unique : shapedId(idMutation.shape, unique);
  return hostile.format === 'json'
    ? jsonDelivery(hostile, unique, id, idMutation?.shape === 'number')
    : xmlDelivery(hostile, unique, id);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every string leaf of `value`, as a setter, in document order. */
function stringLeaves(value: Json, found: ((next: Json) => void)[] = []) {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (typeof item === 'string') found.push((next) => (value[index] = next));
      else stringLeaves(item, found);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item === undefined) continue;
      if (typeof item === 'string' && key !== 'id' && key !== 'action')
        found.push((next) => (value[key] = next));
      else stringLeaves(item, found);
    }
  }
  return found;
}

function nestedJson(depth: number): Json {
  let value: Json = 'deep';
  // The root object holds the key: the chain below it is depth - 1 levels.
  for (let level = 1; level < depth; level += 1) value = level % 2 === 0 ? [value] : { d: value };
  return value;
}

function jsonDelivery(
  hostile: HostileCase,
  unique: string,
  id: string,
  numericId: boolean,
): HostileDelivery {
  const fixture = fixtureText(hostile.kind, 'json', instanceOf(unique));
  const event = JSON.parse(fixture) as { [key: string]: Json };
  event.id = numericId ? numberMark(-1) : id;
  const literals = new Map<string, string>();
  if (numericId) literals.set(numberMark(-1), id);
  hostile.mutations.forEach((change, index) => {
    const leaves = stringLeaves(event);
    if (change.kind === 'string') leaves[change.pick % leaves.length]?.(change.value);
    if (change.kind === 'number') {
      leaves[change.pick % leaves.length]?.(numberMark(index));
      literals.set(numberMark(index), change.literal);
    }
    if (change.kind === 'nesting') event.deep = nestedJson(change.depth);
  });
  let text = JSON.stringify(event);
  for (const change of hostile.mutations) {
    // JSON.parse keeps a "__proto__" key as an own property; an object literal would not.
    if (change.kind === 'key')
      text = `${text.slice(0, -1)},${JSON.stringify(change.key)}:${JSON.stringify({ polluted: change.value })}}`;
  }
  for (const [mark, literal] of literals) text = text.replace(JSON.stringify(mark), literal);
  return { body: Buffer.from(text, 'utf8'), contentType: 'application/json', id };
}

/**
 * XML text of `value`: markup escaped; control characters (but TAB, CR, LF) and lone surrogates (which UTF-8 cannot
 * encode) as character references, as a hostile sender would write them (some are not XML).
 */
function xmlText(value: string): string {
  return value.replace(/[&<>]|[^\P{Cc}\t\n\r]|\p{Cs}/gu, (char) =>
    ['&', '<', '>'].includes(char)
      ? `&${{ '&': 'amp', '<': 'lt', '>': 'gt' }[char] ?? ''};`
      : `&#${String(char.codePointAt(0))};`,
  );
}

function xmlDelivery(hostile: HostileCase, unique: string, id: string): HostileDelivery {
  let text = fixtureText(hostile.kind, 'xml', instanceOf(unique)).replace(
    /<id>[^<]*<\/id>/,
    `<id>${xmlText(id)}</id>`,
  );
  for (const change of hostile.mutations) {
    const leaves = [...text.matchAll(/<([a-z_]+)(?: [^>]*)?>([^<]+)<\/\1>/g)].filter(
      (match) => match[1] !== 'id' && match[1] !== 'action',
    );
    const replaceLeaf = (pick: number, value: string) => {
      const leaf = leaves[pick % Math.max(leaves.length, 1)];
      if (leaf?.index === undefined) return;
      const start = leaf.index + leaf[0].indexOf('>') + 1;
      text = `${text.slice(0, start)}${value}${text.slice(start + (leaf[2] ?? '').length)}`;
    };
    if (change.kind === 'string') replaceLeaf(change.pick, xmlText(change.value));
    if (change.kind === 'number') replaceLeaf(change.pick, change.literal);
    if (change.kind === 'key')
      text = insertIntoRoot(text, `<${change.key}>${xmlText(change.value)}</${change.key}>`);
    if (change.kind === 'nesting')
      text = insertIntoRoot(
        text,
        `${'<d>'.repeat(change.depth - 1)}deep${'</d>'.repeat(change.depth - 1)}`,
      );
  }
  return { body: Buffer.from(text, 'utf8'), contentType: 'application/xml', id };
}

function insertIntoRoot(text: string, element: string): string {
  const close = text.lastIndexOf('</');
  return `${text.slice(0, close)}${element}${text.slice(close)}`;
}

/** An ordinary LOAN (the JSON fixture) with its own id: what must keep flowing after each hostile one. */
export function sentinelDelivery(id: string): HostileDelivery {
  const event = JSON.parse(fixtureText('loan', 'json', FIXTURE_INSTANCE)) as Record<
    string,
    unknown
  >;
  event.id = id;
  return { body: Buffer.from(JSON.stringify(event), 'utf8'), contentType: 'application/json', id };
}
