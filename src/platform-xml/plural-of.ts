/**
 * The platform's XML list wrappers (docs/platform-shapes.md): `counter` → `counters`, `library` →
 * `libraries`, `address` → `addresses`. The one rule both directions share: the listener's reader
 * (events/xml-node-to-json-form.ts) unwraps by it, the writer (to-platform-xml.ts) wraps by it.
 */
export function pluralOf(singular: string): string {
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  return `${singular}s`;
}
