import { FieldFlag } from './kinds/field-rules';
import type { FieldRules } from './kinds/field-rules';
import { pluralOf } from '../platform-xml/plural-of';
import { UNSAFE_KEYS } from './unsafe-keys';

/** One open element; its value is decided when it closes. */
interface Frame {
  readonly name: string;
  /** The JSON key of this element in its parent: its name, or the list key of its wrapper. */
  readonly key: string;
  /** What the parent's rules say of `key` (FieldFlag bits). */
  readonly flags: number;
  /** The rules of this element's own fields. */
  readonly rules: FieldRules | undefined;
  /** Set when this element is a known list wrapper (`<counters>` of `counter`). */
  readonly listKey: string | undefined;
  /** The rules of the object that holds `listKey` (for a wrapper's items). */
  readonly holder: FieldRules | undefined;
  readonly attributes: Record<string, string> | undefined;
  text: string;
  fields: Record<string, unknown> | undefined;
  repeated: Set<string> | undefined;
}

const BLANK = /^\s*$/;

/**
 * Turns a stream of XML elements into the event's JSON form, following the platform's XML
 * conventions (docs/platform-shapes.md): the root unwrapped, `desc` and `link` attributes to
 * fields, wrapped lists (`<counters><counter>`) to the singular key. Text is kept as sent;
 * whitespace between elements is not a value. As a JAXB-style writer does, a JSON null is an
 * element left out, and an empty element is an empty string (`""`) — or `{}` where the rules know
 * an object or a code, `[]` for a known list's wrapper: XML cannot tell those apart by itself.
 * No recursion: one frame per open element.
 */
export class XmlJsonFormBuilder {
  private readonly stack: Frame[] = [];
  private root: unknown;

  constructor(private readonly rootRules: FieldRules) {}

  get depth(): number {
    return this.stack.length;
  }

  open(name: string, attributes: Record<string, string> | undefined): void {
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) {
      this.stack.push(frame(name, name, 0, this.rootRules, undefined, undefined, attributes));
      return;
    }
    if (parent.listKey !== undefined && name === parent.listKey) {
      const flags = parent.holder?.flags.get(name) ?? 0;
      const rules = parent.holder?.objects.get(name);
      this.stack.push(frame(name, name, flags, rules, undefined, undefined, attributes));
      return;
    }
    const flags = parent.rules?.flags.get(name) ?? 0;
    const listKey = parent.rules?.wrappers.get(name);
    const rules = parent.rules?.objects.get(name);
    this.stack.push(frame(name, name, flags, rules, listKey, parent.rules, attributes));
  }

  text(text: string): void {
    const top = this.stack[this.stack.length - 1];
    if (top !== undefined) top.text += text;
  }

  close(): void {
    const closed = this.stack.pop();
    if (closed === undefined) return;
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) {
      this.root = closed.fields === undefined ? undefined : withAttributes(closed);
      return;
    }
    const [key, value] = valueOf(closed);
    if (value !== undefined && !UNSAFE_KEYS.has(key)) addField(parent, key, value);
  }

  /** The root's fields, or undefined when the root element held no elements. */
  result(): Record<string, unknown> | undefined {
    return this.root as Record<string, unknown> | undefined;
  }
}

function frame(
  name: string,
  key: string,
  flags: number,
  rules: FieldRules | undefined,
  listKey: string | undefined,
  holder: FieldRules | undefined,
  attributes: Record<string, string> | undefined,
): Frame {
  return {
    name,
    key,
    flags,
    rules,
    listKey,
    holder,
    attributes,
    text: '',
    fields: undefined,
    repeated: undefined,
  };
}

/** A closed element → [its key in the parent, its JSON-form value] (undefined: absent). */
function valueOf(closed: Frame): [string, unknown] {
  const { fields, attributes, text, flags } = closed;
  if (fields !== undefined) {
    const keys = Object.keys(fields);
    const only = keys[0];
    if (attributes === undefined && keys.length === 1 && only !== undefined) {
      // `<counters><counter/>…</counters>`: the plural of its only child's name.
      if (pluralOf(only) === closed.name) return [only, asArray(fields[only])];
    }
    return [closed.key, withAttributes(closed)];
  }
  const blank = BLANK.test(text);
  if (attributes !== undefined) {
    if (blank && (flags & FieldFlag.object) !== 0) return [closed.key, merged({}, attributes)];
    return [closed.key, merged({ value: text }, attributes)];
  }
  if (closed.listKey !== undefined && blank) return [closed.listKey, []];
  if (blank && (flags & (FieldFlag.object | FieldFlag.code)) !== 0) return [closed.key, {}];
  return [closed.key, text];
}

function withAttributes(closed: Frame): Record<string, unknown> {
  const fields = closed.fields ?? {};
  return closed.attributes === undefined ? fields : merged(merged({}, closed.attributes), fields);
}

/**
 * `into` with each own field of `from` set on it, as `{ ...into, ...from }` would make it. A loop,
 * not a spread: V8 copies a second spread source through its slow path, which was a fifth of the
 * XML reader's time. Neither object holds `__proto__` (refused where the keys are read).
 */
function merged(
  into: Record<string, unknown>,
  from: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  for (const key in from) into[key] = from[key];
  return into;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

/** A repeated element makes a list: `<a>1</a><a>2</a>` → `a: ["1", "2"]`. */
function addField(parent: Frame, key: string, value: unknown): void {
  const fields = (parent.fields ??= {});
  if (!Object.hasOwn(fields, key)) {
    fields[key] = value;
    return;
  }
  const repeated = (parent.repeated ??= new Set());
  if (repeated.has(key)) {
    (fields[key] as unknown[]).push(value);
  } else {
    fields[key] = [fields[key], value];
    repeated.add(key);
  }
}
