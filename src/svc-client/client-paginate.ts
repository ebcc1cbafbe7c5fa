import type { EndpointTable, LooseParams, Page, SvcPaginate } from './client-types';
import type { Endpoint } from './endpoint';
import { isRecord } from './is-record';
import { paginateItems, paginatePages } from './paginate';

export interface PaginateDeps {
  /** The row of a list operation; any other route is refused. */
  readonly listRow: (route: string) => Endpoint;
  readonly send: (endpoint: Endpoint, params: LooseParams) => Promise<unknown>;
}

/** `paginate(route, params)` item by item, and `.pages()` page by page. */
export function createPaginate({ listRow, send }: PaginateDeps): SvcPaginate<EndpointTable> {
  function pageFetcher(route: string, params: LooseParams) {
    const endpoint = listRow(route);
    const query = isRecord(params.query) ? params.query : {};
    return {
      start: {
        offset: typeof query['offset'] === 'number' ? query['offset'] : undefined,
        limit: typeof query['limit'] === 'number' ? query['limit'] : undefined,
      },
      fetchPage: (offset: number, limit: number) =>
        send(endpoint, { ...params, format: 'json', query: { ...query, offset, limit } }),
    };
  }

  const items = (route: string, params: LooseParams = {}): AsyncIterableIterator<unknown> => {
    const { fetchPage, start } = pageFetcher(route, params);
    return paginateItems(fetchPage, start);
  };
  const pages = (route: string, params: LooseParams = {}): AsyncIterableIterator<Page> => {
    const { fetchPage, start } = pageFetcher(route, params);
    return paginatePages(fetchPage, start);
  };
  return Object.assign(items, { pages }) as SvcPaginate<EndpointTable>;
}
