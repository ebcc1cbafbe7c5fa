import { z } from 'zod';

export interface SearchQueryOptions {
  /**
   * Accept the bare value `all`, meaning no filter: where the spec gives q "default all"
   * (invoices §4.11, licenses §4.12), `q=all` is the default written out.
   */
  readonly bareAll?: boolean;
}

/**
 * The `q` parameter (spec §2): `<field>~<text>` (contains) or `<field>=<value>` (equals), one
 * condition, `field` one of those the operation lists. The text after the first `~` or `=` is taken
 * as it is, so it may hold further `~`, `=` or spaces.
 */
export function searchQuery<const F extends readonly [string, ...string[]]>(
  fields: F,
  { bareAll = false }: SearchQueryOptions = {},
) {
  const rule = `must be <field>~<text> or <field>=<value> with <field> one of ${fields.join(', ')}${bareAll ? ', or all (no filter, the default)' : ''}`;
  return z
    .string(rule)
    .refine((q) => {
      if (bareAll && q === 'all') return true;
      const field = searchFieldOf(q);
      return field !== undefined && fields.includes(field);
    }, rule)
    .optional();
}

/** The field a well-formed `q` searches (`fund_code` of `fund_code~ABC`), else undefined. */
export function searchFieldOf(q: string): string | undefined {
  return /^([a-z][a-z0-9_]*)[~=]./s.exec(q)?.[1];
}
