import type { EndpointTable, LooseParams, Page, SvcPaginate } from './client-types';
import type { Endpoint } from './endpoint';
import { isRecord } from './is-record';
import { paginateItems, paginatePages, readPage } from './paginate';
import type { PreparedCall } from './prepare-call';
import { answerReader, invalidResponse } from './read-answer';
import { readXmlPage } from './read-xml-page';
import type { Consume } from './send-request';

export interface PaginateDeps {
  /** The row of a list operation; any other route is refused. */
  readonly listRow: (route: string) => Endpoint;
  /** Sends one call; `read` turns the 2xx answer into the result. */
  readonly send: (
    endpoint: Endpoint,
    params: LooseParams,
    read?: (call: PreparedCall) => Consume<unknown>,
  ) => Promise<unknown>;
}

/**
 * `paginate(route, params)` item by item, and `.pages()` page by page, in the answer format the
 * caller asks for (`accept`, or `format`): JSON pages are parsed, XML pages are split into their
 * item elements and read for `total_record_count`, so the walk stops the same way in both.
 */
export function createPaginate({ listRow, send }: PaginateDeps): SvcPaginate<EndpointTable> {
  function pageFetcher(route: string, params: LooseParams) {
    const endpoint = listRow(route);
    const query = isRecord(params.query) ? params.query : {};
    const xml = (params.accept ?? params.format) === 'xml';
    return {
      start: {
        offset: typeof query['offset'] === 'number' ? query['offset'] : undefined,
        limit: typeof query['limit'] === 'number' ? query['limit'] : undefined,
      },
      fetchPage: async (offset: number, limit: number): Promise<Page> => {
        const pageParams = { ...params, query: { ...query, offset, limit } };
        if (xml) return (await send(endpoint, pageParams, xmlPageReader(offset))) as Page;
        return readPage(await send(endpoint, pageParams), offset);
      },
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

/** Reads an XML page inside the attempt; a page that is not well-formed XML is an invalid answer. */
function xmlPageReader(offset: number) {
  return (call: PreparedCall): Consume<Page> =>
    async (response) => {
      const text = await answerReader(call)(response);
      try {
        return readXmlPage(typeof text === 'string' ? text : '', offset);
      } catch {
        throw invalidResponse(call, 'the answer is not a well-formed XML list page');
      }
    };
}
