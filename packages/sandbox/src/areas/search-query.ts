import { badRequest } from '../sandbox-error';
import { textParam, type Query } from './query-rules';

/** One condition of `q`: `field~text` (contains) or `field=value` (equals), spec §2. */
export interface SearchTerm {
  readonly field: string;
  readonly text: string;
  readonly exact: boolean;
}

/** Values of one searchable field of an item; `all` is answered by the helper from the others. */
export type FieldValues<T> = (item: T, field: string) => readonly (string | undefined)[];

/**
 * Reads `q` (conditions joined by ` AND `), refusing a malformed one or a field outside `fields`
 * with `code`. `all` is accepted where `fields` lists it.
 */
export function searchParam(
  query: Query,
  fields: readonly string[],
  code: string,
  name = 'q',
): SearchTerm[] {
  const q = textParam(query, name, code);
  if (q === undefined || q.toLowerCase() === 'all') return [];
  return q.split(/\s+AND\s+/).map((condition) => {
    const match = /^([A-Za-z_]+)\s*([~=])\s*(.+)$/.exec(condition.trim());
    if (match === null) {
      throw badRequest(
        code,
        `Invalid query format: ${condition} (expected field~text or field=value)`,
      );
    }
    const field = (match[1] ?? '').toLowerCase();
    if (!fields.includes(field)) {
      throw badRequest(code, `Field ${field} cannot be searched (valid: ${fields.join(', ')})`);
    }
    return { field, text: (match[3] ?? '').trim().toLowerCase(), exact: match[2] === '=' };
  });
}

export function matchesSearch<T>(
  item: T,
  terms: readonly SearchTerm[],
  fields: readonly string[],
  valuesOf: FieldValues<T>,
): boolean {
  return terms.every((term) => {
    const names = term.field === 'all' ? fields.filter((field) => field !== 'all') : [term.field];
    return names.some((field) =>
      valuesOf(item, field).some((value) => {
        if (value === undefined) return false;
        const lower = value.toLowerCase();
        return term.exact ? lower === term.text : lower.includes(term.text);
      }),
    );
  });
}

/** Field values read straight off a flat record (`item[field]`, or its `value` for a code field). */
export function recordValues(item: Readonly<Record<string, unknown>>, field: string): string[] {
  const raw = item[field];
  if (typeof raw === 'string' || typeof raw === 'number') return [String(raw)];
  if (raw !== null && typeof raw === 'object' && 'value' in raw) return [String(raw.value)];
  return [];
}
