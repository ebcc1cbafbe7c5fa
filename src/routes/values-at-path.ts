import { isRecord } from '../is-record';

/**
 * Every value a dotted path reaches in an event: a list met on the way is walked element by
 * element, so `notes.type` reaches the type of each note. A missing key reaches nothing.
 */
export function valuesAtPath(root: unknown, segments: readonly string[]): unknown[] {
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
