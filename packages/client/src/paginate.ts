import type { Page } from './client-types';

/** Spec §2, §8: the largest page a list operation serves. */
const PAGE_SIZE = 100;

/** Fetches one page of a list operation, read into its items and total. */
export type FetchPage = (offset: number, limit: number) => Promise<Page>;

/**
 * Walks a list operation page by page (docs/platform-shapes.md, "List responses"): `limit=100`,
 * `offset` advancing by the items received, until `offset` reaches `total_record_count`. An empty
 * page ends the walk too, so a platform whose count is wrong or missing cannot loop it forever.
 */
export async function* paginatePages(
  fetchPage: FetchPage,
  start: { offset?: number | undefined; limit?: number | undefined } = {},
): AsyncGenerator<Page, void, undefined> {
  const limit = start.limit !== undefined && start.limit > 0 ? start.limit : PAGE_SIZE;
  let offset = start.offset ?? 0;
  for (;;) {
    const page = await fetchPage(offset, limit);
    yield page;
    if (page.items.length === 0) return;
    offset += page.items.length;
    if (page.total !== undefined && offset >= page.total) return;
  }
}

/** The same walk, item by item. */
export async function* paginateItems(
  fetchPage: FetchPage,
  start: { offset?: number | undefined; limit?: number | undefined } = {},
): AsyncGenerator<unknown, void, undefined> {
  for await (const page of paginatePages(fetchPage, start)) yield* page.items;
}

/**
 * A JSON page: `{ "<singular key>": [ … ], "total_record_count": n }`: the items are the one array-valued
 * property; an empty page may lack it. A body with several arrays takes the first (none of the
 * platform's lists has two), and anything that is not an object is an empty page.
 */
export function readPage(body: unknown, offset: number): Page {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { items: Array.isArray(body) ? body : [], total: undefined, offset };
  }
  const items = Object.values(body).find((value): value is unknown[] => Array.isArray(value));
  const count: unknown = 'total_record_count' in body ? body.total_record_count : undefined;
  const total =
    typeof count === 'number'
      ? count
      : typeof count === 'string' && /^\d+$/.test(count)
        ? Number(count)
        : undefined;
  return { items: items ?? [], total, offset };
}
