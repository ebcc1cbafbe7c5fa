import { createSvcClient, endpoints, SvcApiError } from '@svcws/client';
import type {
  DownloadParams,
  DownloadResult,
  DownloadTarget,
  LooseParams,
  SvcClient,
} from '@svcws/client';
import type { SvcRequest } from '../../../packages/client/src/client-types';
import { platformAreas, startSandbox, TEST_API_KEY } from '@svcws/sandbox';
import type { SandboxConfig, SandboxUnderTest } from '@svcws/sandbox';

type Table = typeof endpoints;
export type Route = keyof Table & string;

/**
 * Which test file owns which rows of the operation table. Every file checks, in its last test,
 * that it called every row of its part; `parts cover the table` (jobs.test.ts) checks that the
 * parts together are exactly `Object.keys(endpoints)`, so the union of the files is the table.
 */
export const PARTS = {
  conf: (route: Route) => endpoints[route].area === 'conf' && !route.includes(' /conf/jobs'),
  jobs: (route: Route) => route.includes(' /conf/jobs'),
  partners: (route: Route) => endpoints[route].area === 'partners',
  acq: (route: Route) => endpoints[route].area === 'acq',
} as const;

export type Part = keyof typeof PARTS;

export function routesOf(part: Part): Route[] {
  return (Object.keys(endpoints) as Route[]).filter((route) => PARTS[part](route));
}

export interface ClientAgainstSandbox {
  readonly sut: SandboxUnderTest;
  readonly client: SvcClient;
  /** `client.request`, recording each route that got an answer from the sandbox. */
  readonly request: SvcRequest<Table>;
  /** `client.download`, recorded under the download row. */
  download(params: DownloadParams, target: DownloadTarget): Promise<DownloadResult>;
  /** Routes that had a round trip (a 2xx, or an error answer with an HTTP status). */
  readonly called: ReadonlySet<string>;
  close(): Promise<void>;
}

/**
 * The real sandbox (every area, 127.0.0.1, port 0) and the real client pointed at it: no retries
 * and a limiter far above the sandbox's threshold (which is raised too), so each call is one
 * round trip.
 */
export async function clientAgainstSandbox(
  config: Partial<SandboxConfig> = {},
): Promise<ClientAgainstSandbox> {
  const sut = await startSandbox(
    { SANDBOX_RATE_PER_SECOND: 10_000, ...config },
    { areas: platformAreas },
  );
  const client = createSvcClient({
    baseUrl: sut.url,
    apiKey: TEST_API_KEY,
    ratePerSecond: 10_000,
    maxRetries: 0,
    timeoutMs: 10_000,
  });
  const called = new Set<string>();
  const record = async <T>(route: string, call: () => Promise<T>): Promise<T> => {
    try {
      const result = await call();
      called.add(route);
      return result;
    } catch (error) {
      if (error instanceof SvcApiError && error.status !== undefined) called.add(route);
      throw error;
    }
  };
  // The typed overloads of client.request, seen through one loose signature to wrap them.
  const untyped = client.request as unknown as (
    route: string,
    params?: LooseParams,
  ) => Promise<unknown>;
  const request = ((route: Route, params?: LooseParams) =>
    record(route, () => untyped(route, params))) as SvcRequest<Table>;
  return {
    sut,
    client,
    request,
    download: (params, target) =>
      record('GET /conf/jobs/{job_id}/instances/{instance_id}/download', () =>
        client.download(params, target),
      ),
    called,
    close: () => sut.close(),
  };
}

/** The rejection of `promise`, which must be an SvcApiError. */
export async function apiError(promise: Promise<unknown>): Promise<SvcApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcApiError) return error;
    throw error;
  }
  throw new Error('expected an SvcApiError, the call succeeded');
}

/** A documented 400: status, the spec's numeric code and the client's meaning of it. */
export async function expectRefusal(
  promise: Promise<unknown>,
  code: string,
  meaning: string | undefined,
): Promise<SvcApiError> {
  const error = await apiError(promise);
  expect({ status: error.status, code: error.code, meaning: error.meaning }).toEqual({
    status: 400,
    code,
    meaning,
  });
  return error;
}

/** A JSON object answer, narrowed for reading fields. */
export function obj(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

/** The items of a list answer (`{ <key>: [...], total_record_count }`). */
export function items(value: unknown, key: string): Record<string, unknown>[] {
  const list = obj(value)[key];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`${key} is not an array`);
  return list.map(obj);
}

export function total(value: unknown): unknown {
  return obj(value).total_record_count;
}

/** `{value, desc}` code field's value, or the plain text. */
export function valueOf(field: unknown): unknown {
  return typeof field === 'object' && field !== null && 'value' in field ? field.value : field;
}

/** `YYYY-MM-DD` of today plus `days` (UTC). */
export function isoDay(days = 0, from = new Date()): string {
  return new Date(from.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}
