import { isRecord } from '../is-record';

/**
 * `value` as JSON with every object's keys sorted, so that two values that differ only in the
 * order their keys were written give the same text (two entries of a start-up file compared).
 * Lists keep their order; what JSON cannot carry (a function, undefined) is left out, as
 * JSON.stringify leaves it out.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isRecord(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
