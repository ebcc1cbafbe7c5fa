import type { EndpointTable } from './client-types';
import type { Endpoint } from './endpoint';
import { SvcParamError } from './svc-param-error';

/** Finds the row a call names, and refuses a row the way of calling does not fit. */
export interface RowLookup {
  /** The row of a route; an unknown route throws `RangeError`. */
  byRoute(route: string): Endpoint;
  /** The row of an operation name (`getJob`); an unknown name throws `RangeError`. */
  byOperation(operation: string): Endpoint;
  /** The row, when it answers with a document (JSON or XML): file answers go through download(). */
  document(endpoint: Endpoint): Endpoint;
  /** The row of a route, when it is a list operation (`paginate()`). */
  list(route: string): Endpoint;
  /** The table's file row (`download: true`, spec §4.3). */
  download(): Endpoint;
}

export function createRowLookup(table: EndpointTable): RowLookup {
  const byOperation = new Map<string, Endpoint>(
    Object.values(table).map((endpoint) => [endpoint.operation, endpoint]),
  );
  const downloadRow = Object.values(table).find((endpoint) => endpoint.download);
  const byRoute = (route: string): Endpoint => {
    const endpoint = Object.hasOwn(table, route) ? table[route] : undefined;
    if (!endpoint) throw new RangeError(`unknown route: ${route}`);
    return endpoint;
  };
  return {
    byRoute,
    byOperation(operation) {
      const endpoint = byOperation.get(operation);
      if (!endpoint) throw new RangeError(`unknown operation: ${operation}`);
      return endpoint;
    },
    document(endpoint) {
      // A file answer read as text would sit whole in memory.
      if (endpoint.download) {
        throw refused(endpoint, 'answers with a file: use download() or downloadStream()');
      }
      return endpoint;
    },
    list(route) {
      const endpoint = byRoute(route);
      if (!endpoint.list) throw refused(endpoint, 'is not a list operation (no limit/offset)');
      return endpoint;
    },
    download() {
      if (!downloadRow) throw new RangeError('the operation table has no download row');
      return downloadRow;
    },
  };
}

function refused(endpoint: Endpoint, rule: string): SvcParamError {
  return new SvcParamError({ operation: endpoint.operation, parameter: 'route', rule });
}
