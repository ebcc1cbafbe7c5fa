import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import pino from 'pino';
import { createErrorHandler, notFoundHandler } from '../../../src/error-handler';
import { OPERATION_CODES } from '../../../src/operation-codes';
import { createRequestBodyParser } from '../../../src/parse-request-body';
import type { SandboxArea } from '../../../src/sandbox-context';
import { seededRandom } from '../../../src/seeded-random';

/**
 * One sandbox area behind the core's body parser (JSON and XML) and error middleware, whose guard
 * turns a 400 code the operation does not declare into a 500, on 127.0.0.1 port 0.
 */
export interface AreaServer {
  /** `fetch` relative to `/svcws/v1`; a JSON body is sent as JSON. */
  call(method: string, path: string, options?: CallOptions): Promise<AreaReply>;
  close(): Promise<void>;
}

export interface CallOptions {
  readonly body?: unknown;
  readonly accept?: string;
  readonly contentType?: string;
}

export interface AreaReply {
  readonly status: number;
  readonly text: string;
  readonly contentType: string;
  /** The JSON body (undefined for an empty or non-JSON body). */
  readonly json: Record<string, unknown>;
  /** The first error code of an error body. */
  readonly errorCode: string | undefined;
}

async function startAreaServer(area: SandboxArea, seed = 42): Promise<AreaServer> {
  const app = express();
  const router = express.Router();
  let base = '';
  area(router, {
    institution: { code: '01UNI_INST', name: 'University Library' },
    random: seededRandom(seed),
    publicBaseUrl: () => base,
    now: () => new Date('2025-03-12T10:00:00Z'),
  });
  app.use(
    '/svcws/v1',
    createRequestBodyParser({ operations: OPERATION_CODES, limit: '10mb' }),
    router,
    notFoundHandler,
  );
  app.use(createErrorHandler(pino({ level: 'silent' }), OPERATION_CODES));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    call: (method, path, options = {}) => call(base, method, path, options),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function call(
  base: string,
  method: string,
  path: string,
  { body, accept = 'application/json', contentType }: CallOptions,
): Promise<AreaReply> {
  const headers: Record<string, string> = { accept };
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    headers['content-type'] = contentType ?? 'application/json';
  }
  const response = await fetch(`${base}/svcws/v1${path}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const json =
    type.includes('json') && text !== '' ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { status: response.status, text, contentType: type, json, errorCode: errorCodeOf(json) };
}

function errorCodeOf(json: Record<string, unknown>): string | undefined {
  const list = json.errorList as { error?: { errorCode?: string }[] } | undefined;
  return list?.error?.[0]?.errorCode;
}

/** Starts the area before the file's tests, closes it after them; answers with its `call`. */
export function useAreaServer(area: SandboxArea, seed = 42): AreaServer['call'] {
  let server: AreaServer | undefined;
  beforeAll(async () => {
    server = await startAreaServer(area, seed);
  });
  afterAll(async () => {
    await server?.close();
  });
  return (method, path, options) => {
    if (server === undefined) throw new Error('area server not started');
    return server.call(method, path, options);
  };
}
