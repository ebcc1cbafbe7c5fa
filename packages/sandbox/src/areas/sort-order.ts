export type Direction = 'asc' | 'desc';

/** Sorts a copy by `primary`, then by `secondary`, both in `direction` (text compare, numeric-aware). */
export function sortedBy<T>(
  items: readonly T[],
  direction: Direction,
  primary: (item: T) => string,
  secondary: (item: T) => string = () => '',
): T[] {
  const sign = direction === 'asc' ? 1 : -1;
  const compare = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });
  return [...items].sort(
    (a, b) => sign * (compare(primary(a), primary(b)) || compare(secondary(a), secondary(b))),
  );
}
