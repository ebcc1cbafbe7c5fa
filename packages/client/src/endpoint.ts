import type { z } from 'zod';

/**
 * One row of the operation table (spec §4). The 94 operations are data, not methods:
 * `request()` reads a row to build, check and classify a call.
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

/** What a documented refusal means for a person, and whether trying again can help. */
export interface Refusal {
  readonly explanation: string;
  readonly retryable: boolean;
  /** How long to wait before trying again, when waiting is what helps. */
  readonly retryAfterMs?: number;
}

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

/**
 * A row as written in `endpoints/{area}.ts`: the route once, and what the spec says of the
 * operation. Method, path and area are derived (`defineArea`).
 */
export interface EndpointRow<R extends Route = Route, Q extends z.ZodType = z.ZodType> {
  readonly route: R;
  /** camelCase name, unique across the table: `getJob`, `runJob`, `listFundTransactions` … */
  readonly operation: string;
  /**
   * The query parameters, as a strict zod object: unknown names, values outside an enumeration,
   * malformed dates and cross-field rules (§2, §4, §8) fail here, before any network call. An
   * issue's `path[0]` names the parameter and its message states the rule.
   */
  readonly query: Q;
  /** Documented 400 codes and their meanings for this operation (§4), e.g. `{ '402216': 'invalid job id' }`. */
  readonly errors: Readonly<Record<string, string>>;
  /** Whether the operation takes a request body (spec: "body required"); none unless given. */
  readonly body?: 'required' | 'none';
  /** Request-body formats the operation accepts; both unless given (the letter update: XML, §1.2). */
  readonly bodyFormats?: readonly BodyFormat[];
  /** A list operation with `limit`/`offset`: `paginate()` accepts it. */
  readonly list?: boolean;
  /** Answers with a file (the job-instance download) rather than a JSON/XML document. */
  readonly download?: boolean;
  /** Checked before the call where the spec states a rule about the body; absent on most rows. */
  readonly bodyRule?: BodyRule;
  /** Checks and types the JSON answer; the answer is `unknown` without one (§2: bodies not shown). */
  readonly response?: z.ZodType;
  /** Refusals the client explains in user words (job submit, §4.3), by code. */
  readonly refusals?: Readonly<Record<string, Refusal>>;
}

/** A row of the table as the client reads it: defaults filled, method, path and area derived. */
export interface Endpoint<
  R extends Route = Route,
  Q extends z.ZodType = z.ZodType,
  S extends z.ZodType | undefined = z.ZodType | undefined,
> {
  readonly route: R;
  readonly method: MethodOf<R>;
  /** Relative to `/svcws/v1`, `{name}` placeholders spelled exactly as in the spec. */
  readonly path: PathOf<R>;
  readonly operation: string;
  /** The file the row is written in (`endpoints/conf.ts` → `conf`). */
  readonly area: Area;
  readonly query: Q;
  readonly body: 'required' | 'none';
  readonly bodyFormats: readonly BodyFormat[];
  readonly errors: Readonly<Record<string, string>>;
  readonly list: boolean;
  readonly download: boolean;
  readonly bodyRule?: BodyRule;
  readonly response: S;
  readonly refusals: Readonly<Record<string, Refusal>>;
}

type ResponseSchemaOf<Row> = Row extends { readonly response: infer S extends z.ZodType }
  ? S
  : undefined;

/** The rows of one area, keyed by route (`typeof confEndpoints['GET /conf/jobs']`). */
export type AreaTable<Rows extends readonly EndpointRow[]> = {
  readonly [Row in Rows[number] as Row['route']]: Row extends EndpointRow<infer R, infer Q>
    ? Endpoint<R, Q, ResponseSchemaOf<Row>>
    : never;
};

/** The JSON answer of a row: typed where the row has a response schema, `unknown` otherwise. */
export type ResponseOfEndpoint<E> = E extends { readonly response: infer S extends z.ZodType }
  ? z.output<S>
  : unknown;

/** One area's rows, keyed by route; the area is the file's (`endpoints/conf.ts` → `conf`). */
export function defineArea<const Rows extends readonly EndpointRow[]>(
  area: Area,
  rows: Rows,
): AreaTable<Rows> {
  const table: Record<string, Endpoint> = {};
  for (const row of rows) {
    if (Object.hasOwn(table, row.route)) throw new Error(`${row.route} is defined twice`);
    table[row.route] = endpointOf(area, row);
  }
  return table as AreaTable<Rows>;
}

function endpointOf(area: Area, row: EndpointRow): Endpoint {
  const space = row.route.indexOf(' ');
  const { bodyRule, ...fields } = row;
  return {
    ...fields,
    method: row.route.slice(0, space) as HttpMethod,
    path: row.route.slice(space + 1) as `/${string}`,
    area,
    body: row.body ?? 'none',
    bodyFormats: row.bodyFormats ?? ['json', 'xml'],
    list: row.list ?? false,
    download: row.download ?? false,
    response: row.response,
    refusals: row.refusals ?? {},
    ...(bodyRule === undefined ? {} : { bodyRule }),
  };
}
