/** An entry of a start-up file's list that repeats an earlier one. */
export interface DuplicateEntry {
  /** Its index in the list. */
  readonly index: number;
  /** The index of the first entry with the same key. */
  readonly first: number;
}

/**
 * The entries of `items` whose `keyOf` an earlier entry has, each with the first that has it: a
 * start-up file's repeated names or rules, refused at load naming both entries.
 */
export function duplicateEntries<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
): DuplicateEntry[] {
  const firsts = new Map<string, number>();
  const found: DuplicateEntry[] = [];
  items.forEach((item, index) => {
    const key = keyOf(item);
    const first = firsts.get(key);
    if (first === undefined) firsts.set(key, index);
    else found.push({ index, first });
  });
  return found;
}
