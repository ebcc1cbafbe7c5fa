/** The platform's XML list wrappers: `counter` → `counters`, `library` → `libraries`, `address` → `addresses`. */
export function pluralOf(singular: string): string {
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  return `${singular}s`;
}
