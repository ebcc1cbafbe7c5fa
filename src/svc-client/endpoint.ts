import type { z } from 'zod';

/**
 * One row of the operation table (spec §4). The 94 operations are data, not methods
 * (CONVENTIONS 6): `request()` reads a row to build, check and classify a call.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Area = 'conf' | 'partners' | 'acq';
export type BodyFormat = 'json' | 'xml';

/**
 * A check of a request body that the spec states as a rule (§4.11 code 60252: vat percentage or
 * vat amount, not both). Returns the violated rule in plain words, or undefined when the body
 * keeps it. Takes the body as the caller gives it: an object (JSON) or a string (XML).
 */
export type BodyRule = (body: unknown) => string | undefined;

/** `'GET /conf/jobs/{job_id}'`: method, one space, path relative to `/svcws/v1` as the spec writes it. */
export type Route = `${HttpMethod} /${string}`;

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;

/** `{ job_id: string; instance_id: string }` from `'/conf/jobs/{job_id}/instances/{instance_id}'`. */
export type PathParams<P extends string> = { [K in ParamNames<P>]: string };

export type MethodOf<R extends Route> = R extends `${infer M extends HttpMethod} /${string}`
  ? M
  : never;
export type PathOf<R extends Route> = R extends `${HttpMethod} ${infer P}` ? P : never;

export interface Endpoint<R extends Route = Route, Q extends z.ZodType = z.ZodType> {
  readonly route: R;
  readonly method: MethodOf<R>;
  /** Relative to `/svcws/v1`, `{name}` placeholders spelled exactly as in the spec. */
  readonly path: PathOf<R>;
  /** camelCase name, unique across the table: `getJob`, `runJob`, `listFundTransactions` … */
  readonly operation: string;
  readonly area: Area;
  /**
   * The query parameters, as a strict zod object: unknown names, values outside an enumeration,
   * malformed dates and cross-field rules (§2, §4, §8) fail here, before any network call. An
   * issue's `path[0]` names the parameter and its message states the rule.
   */
  readonly query: Q;
  /** Whether the operation takes a request body (spec: "body required"). */
  readonly body: 'required' | 'none';
  /** Request-body formats the operation accepts (the letter update: XML only, §1.2, §7 rule 5). */
  readonly bodyFormats: readonly BodyFormat[];
  /** Documented 400 codes and their meanings for this operation (§4), e.g. `{ '402216': 'invalid job id' }`. */
  readonly errors: Readonly<Record<string, string>>;
  /** A list operation with `limit`/`offset`: `paginate()` accepts it. */
  readonly list: boolean;
  /** Answers with a file (the job-instance download) rather than a JSON/XML document. */
  readonly download: boolean;
  /** Checked before the call where the spec states a rule about the body; absent on most rows. */
  readonly bodyRule?: BodyRule;
}

export interface EndpointInput<Q extends z.ZodType> {
  operation: string;
  area: Area;
  query: Q;
  body?: 'required' | 'none';
  bodyFormats?: readonly BodyFormat[];
  errors: Readonly<Record<string, string>>;
  list?: boolean;
  download?: boolean;
  bodyRule?: BodyRule;
}

/** Builds a row; method and path are split off the route so the route stays the single source. */
export function defineEndpoint<const R extends Route, Q extends z.ZodType>(
  route: R,
  input: EndpointInput<Q>,
): Endpoint<R, Q> {
  const space = route.indexOf(' ');
  return {
    route,
    method: route.slice(0, space) as MethodOf<R>,
    path: route.slice(space + 1) as PathOf<R>,
    operation: input.operation,
    area: input.area,
    query: input.query,
    body: input.body ?? 'none',
    bodyFormats: input.bodyFormats ?? ['json', 'xml'],
    errors: input.errors,
    list: input.list ?? false,
    download: input.download ?? false,
    ...(input.bodyRule === undefined ? {} : { bodyRule: input.bodyRule }),
  };
}
