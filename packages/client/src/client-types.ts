import type { Readable, Writable } from 'node:stream';
import type { z } from 'zod';
import type { BodyFormat, Endpoint, PathParams, ResponseOfEndpoint } from './endpoint';

/** The operation table, keyed by route (`endpoints/index.ts`, or a test's own rows). */
export type EndpointTable = Readonly<Record<string, Endpoint>>;

/** The routes of a table. */
export type RouteOf<T extends EndpointTable> = keyof T & string;

type HasKeys<T> = [keyof T] extends [never] ? false : true;

/** `path` is required exactly when the route has `{placeholders}`. */
type PathPart<E extends Endpoint> =
  HasKeys<PathParams<E['path']>> extends true
    ? { path: PathParams<E['path']> }
    : { path?: Readonly<Record<string, never>> };

export interface CallOptions {
  /** Combined with the client's timeout; an abort ends the call at once and is never retried. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number | undefined;
}

/** Parameters of `request(route, …)`, typed from the row: path from the route, query from its schema. */
export type RequestParams<E extends Endpoint> = PathPart<E> &
  CallOptions & {
    query?: z.input<E['query']>;
    /** JSON: the value, serialized. XML: the document as a string, passed through. */
    body?: unknown;
    /** The request body's format (`Content-Type`, spec §1.2); JSON unless `xml`. */
    format?: BodyFormat | undefined;
    /** The answer's format (`Accept`); `format` unless given. */
    accept?: BodyFormat | undefined;
  };

/** The parameters as a rest tuple: optional when the route has no placeholders. */
export type ParamsArg<E extends Endpoint> =
  HasKeys<PathParams<E['path']>> extends true
    ? [params: RequestParams<E>]
    : [params?: RequestParams<E>];

/** The parameters of a call whose answer is XML: `accept: 'xml'`, or an XML `format` with no `accept`. */
type XmlAnswerParams<E extends Endpoint> = RequestParams<E> &
  ({ accept: 'xml' } | { format: 'xml'; accept?: undefined });

export interface SvcRequest<T extends EndpointTable> {
  /** An XML answer is returned as the XML string, whatever the body's format. */
  <R extends RouteOf<T>>(route: R, params: XmlAnswerParams<T[R]>): Promise<string>;
  /** JSON (default): the parsed answer, typed where the route has a response schema, else `unknown`. 204: `undefined`. */
  <R extends RouteOf<T>>(route: R, ...params: ParamsArg<T[R]>): Promise<ResponseOfEndpoint<T[R]>>;
}

/** Run-time shape of a call's parameters, whatever the route. */
export interface LooseParams {
  path?: Readonly<Record<string, string>> | undefined;
  query?: unknown;
  body?: unknown;
  format?: BodyFormat | undefined;
  accept?: BodyFormat | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

/** A page of a list operation (docs/platform-shapes.md, "List responses"). */
export interface Page {
  /** JSON: the parsed items. XML: each item element as XML text (`<job>…</job>`). */
  readonly items: readonly unknown[];
  /** `total_record_count`, when the page carried one. */
  readonly total: number | undefined;
  /** The offset this page was requested at. */
  readonly offset: number;
}

export interface SvcPaginate<T extends EndpointTable> {
  /**
   * Every item of a `list: true` operation, fetched 100 at a time: parsed JSON values, or with an
   * XML answer (`accept`/`format` `xml`) each item element as XML text.
   */
  <R extends RouteOf<T>>(route: R, ...params: ParamsArg<T[R]>): AsyncIterableIterator<unknown>;
  /** The same, a page at a time. */
  pages<R extends RouteOf<T>>(route: R, ...params: ParamsArg<T[R]>): AsyncIterableIterator<Page>;
}

export interface DownloadParams {
  job_id: string;
  instance_id: string;
  /** Spec §4.3: XML (default) or BINARY. */
  download_format?: 'XML' | 'BINARY';
  /** Spec §4.3: a line type of the instance (default TOTAL_RECORDS_IMPORTED). */
  line_type?: string;
}

export interface DownloadTarget extends CallOptions {
  /** A stream to write into (ended when the body ends), or a file path (written whole or not at all). */
  to: Writable | string;
}

export interface DownloadResult {
  readonly bytes: number;
  readonly contentType: string | undefined;
}

export interface DownloadStream {
  readonly body: Readable;
  readonly contentType: string | undefined;
}
