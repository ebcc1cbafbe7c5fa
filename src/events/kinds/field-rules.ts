import { pluralOf } from '../../platform-xml/plural-of';

/** What the JSON form holds at one key; bits, so one lookup per key tells all. */
export const FieldFlag = {
  /** A platform code: a bare string becomes `{value}` (JSON `{value, desc}`, XML `<x desc="…">v</x>`). */
  code: 1,
  /** A JSON number: a numeric string (all XML text is a string) becomes that number. */
  number: 2,
  /** A JSON array: a lone value (one XML element) becomes a one-element array. */
  list: 4,
  /** A JSON string: a number becomes its string (`job_instance.id` sent as a number). */
  string: 8,
  /** A JSON boolean: `"true"` and `"false"` (XML text) become booleans. */
  boolean: 16,
  /** A JSON object: an empty XML element here is `{}`, not an absent value. */
  object: 32,
} as const;

/** The rules of the fields of one object position (the elements of a list share the list's). */
export interface FieldRules {
  readonly flags: ReadonlyMap<string, number>;
  /** Rules of the objects below this position, by key. */
  readonly objects: ReadonlyMap<string, FieldRules>;
  /** XML list wrappers of this position's lists: `counters` → `counter`. */
  readonly wrappers: ReadonlyMap<string, string>;
}

export interface FieldRulesSpec {
  readonly codes?: readonly string[];
  readonly numbers?: readonly string[];
  readonly lists?: readonly string[];
  readonly strings?: readonly string[];
  readonly booleans?: readonly string[];
  /** Objects at this position (also the elements of a list of objects), with their own rules. */
  readonly objects?: Readonly<Record<string, FieldRules>>;
}

/**
 * Builds the rules of one position from lists of keys, the way a kind's file declares them. Built
 * once at start-up into maps, so normalizing costs one map lookup per key at a known position.
 */
export function fieldRules(spec: FieldRulesSpec): FieldRules {
  const flags = new Map<string, number>();
  const mark = (keys: readonly string[] | undefined, flag: number): void => {
    for (const key of keys ?? []) flags.set(key, (flags.get(key) ?? 0) | flag);
  };
  mark(spec.codes, FieldFlag.code);
  mark(spec.numbers, FieldFlag.number);
  mark(spec.lists, FieldFlag.list);
  mark(spec.strings, FieldFlag.string);
  mark(spec.booleans, FieldFlag.boolean);
  const objects = new Map(Object.entries(spec.objects ?? {}));
  mark([...objects.keys()], FieldFlag.object);
  const wrappers = new Map((spec.lists ?? []).map((key) => [pluralOf(key), key]));
  return { flags, objects, wrappers };
}
