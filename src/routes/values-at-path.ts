import { isRecord } from '../is-record';

/**
 * Every value a dotted path reaches in an event: a list met on the way is walked element by
 * element, so `notes.type` reaches the type of each note. A missing key reaches nothing.
 */
export function valuesAtPath(root: unknown, segments: readonly string[]): unknown[] {
  // Most paths run through objects only: one walk, and the lists' way only when one is met.
  let value = root;
  for (const segment of segments) {
    if (Array.isArray(value)) return valuesThroughLists(root, segments);
    if (!isRecord(value) || !Object.hasOwn(value, segment)) return [];
    value = value[segment];
  }
  if (Array.isArray(value)) return valuesThroughLists(root, segments);
  return value === undefined || value === null ? [] : [value];
}

function valuesThroughLists(root: unknown, segments: readonly string[]): unknown[] {
  let current: unknown[] = [root];
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const value of current.flatMap(flatten)) {
      if (isRecord(value) && Object.hasOwn(value, segment)) next.push(value[segment]);
    }
    current = next;
  }
  return current.flatMap(flatten).filter((value) => value !== undefined && value !== null);
}

function flatten(value: unknown): unknown[] {
  return Array.isArray(value) ? value.flatMap(flatten) : [value];
}
