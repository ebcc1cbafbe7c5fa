import type { Endpoint, ResponseOfEndpoint } from '../endpoint';
import { acqEndpoints } from './acq';
import { confEndpoints } from './conf';
import { partnersEndpoints } from './partners';

/** All 94 operations of spec §4, keyed by route (`'GET /conf/jobs/{job_id}'`). */
export const endpoints = { ...confEndpoints, ...partnersEndpoints, ...acqEndpoints } as const;

export type EndpointRoute = keyof typeof endpoints;

/** The JSON answer of a route of the table: typed where its row has a response schema. */
export type ResponseOf<R extends string> = R extends EndpointRoute
  ? ResponseOfEndpoint<(typeof endpoints)[R]>
  : unknown;

const byOperation: ReadonlyMap<string, Endpoint> = new Map(
  Object.values(endpoints).map((endpoint): [string, Endpoint] => [endpoint.operation, endpoint]),
);

/** The row of an operation name (`runJob`), or undefined for a name the table does not hold. */
export function endpointByOperation(operation: string): Endpoint | undefined {
  return byOperation.get(operation);
}
