/** A count with its noun, singular for one: `1 event`, `2 events`. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${String(count)} ${count === 1 ? singular : plural}`;
}
