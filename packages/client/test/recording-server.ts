import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SvcApiError } from '../src';
import type { ClientLogger } from '../src';

/** What the server saw of one request. */
export interface Recorded {
  readonly method: string;
  /** Path and query as sent, e.g. `/svcws/v1/conf/jobs/a%2Fb?op=run&apikey=k`. */
  readonly url: string;
  readonly pathname: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** `performance.now()` when the request arrived. */
  readonly at: number;
}

export type Handler = (
  request: Recorded,
  response: ServerResponse,
  index: number,
) => void | Promise<void>;

export interface RecordingServer {
  readonly baseUrl: string;
  readonly port: number;
  readonly requests: Recorded[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, port 0 (or the port given), recording every request. */
export async function startServer(handler: Handler, port = 0): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  const server: Server = createServer((request, response) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const recorded: Recorded = {
        method: request.method ?? '',
        url: request.url ?? '',
        pathname: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at,
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, response, requests.length - 1)).catch(() => {
        response.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    port: address.port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer with the governance header. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** The platform's JSON error body (docs/platform-shapes.md). */
export function errorBody(code: string, message: string, trackingId = 'E01-TRACK'): unknown {
  return {
    errorsExist: true,
    errorList: { error: [{ errorCode: code, errorMessage: message, trackingId }] },
    result: null,
  };
}

/**
 * A logger whose lines are collected as JSON text, with pino's level numbers (20 debug, 40 warn):
 * the client depends on no logging library, so its tests bring none either.
 */
export function captureLogger(): { logger: ClientLogger; lines: string[] } {
  const lines: string[] = [];
  const write =
    (level: number) =>
    (fields: Record<string, unknown>, msg: string): void => {
      lines.push(JSON.stringify({ level, ...fields, msg }, errorAsText));
    };
  return { logger: { debug: write(20), warn: write(40) }, lines };
}

function errorAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? { type: value.name, message: value.message } : value;
}

/** The SvcApiError a call fails with; fails the test when the call succeeds or throws another. */
export async function failureOf(promise: Promise<unknown>): Promise<SvcApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}
