import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import type { HttpMethod } from './endpoint';

export interface TransportRequest {
  readonly method: HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** Aborts the request, and after the headers the body too. */
  readonly signal: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  /** A header by lower-case name; several values joined with `, `. */
  header(name: string): string | undefined;
  /** The body as it arrives; the caller reads it to the end or destroys it. */
  readonly body: Readable;
}

/** Sends one request; resolves at the response headers. Injectable (`createSvcClient({ transport })`). */
export type HttpTransport = (url: URL, request: TransportRequest) => Promise<TransportResponse>;

/**
 * `node:http`/`node:https` with the global keep-alive agents. Chosen over the global fetch because
 * the download streams hundreds of MB: measured on 300 MB, fetch's web-stream body churned
 * 55-65 MB of RSS against ~30 MB for an `IncomingMessage` piped straight to the file, and the
 * errors of `node:net` carry the codes (ECONNREFUSED, ENOTFOUND) that prove a POST never left.
 */
export const nodeHttpTransport: HttpTransport = (url, init) =>
  new Promise<TransportResponse>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const request = send(url, { method: init.method, headers, signal: init.signal }, (response) =>
      resolve({
        status: response.statusCode ?? 0,
        header: (name) => headerOf(response, name),
        body: response,
      }),
    );
    request.once('error', reject);
    request.end(init.body);
  });

function headerOf(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
