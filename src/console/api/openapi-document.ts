import { z } from 'zod';
import { ApiError } from './api-schemas';
import type { Operation } from './api-operations';

/**
 * The OpenAPI 3.1 document of /api/v1, made from the operations' own zod schemas (zod's
 * toJSONSchema, draft 2020-12: the dialect OpenAPI 3.1 uses), so it says what the handlers send.
 */
export function openApiDocument(operations: readonly Operation[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    (paths[`/api/v1${operation.path}`] ??= {})[operation.method] = pathOperation(operation);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svcws operator console API', version: '1' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: jsonSchema(ApiError) },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

/** One method of one path: its id, parameters, body and answers. */
function pathOperation(operation: Operation): Record<string, unknown> {
  return {
    summary: operation.summary,
    operationId: `${operation.method}${operation.path
      .replace(/[{}]/g, '')
      .replace(/\/(\w)/g, (_m, c: string) => c.toUpperCase())
      .replace(/\W/g, '')}`,
    parameters: parametersOf(operation),
    ...(operation.body === undefined
      ? {}
      : {
          requestBody: {
            content: { 'application/json': { schema: jsonSchema(operation.body) } },
          },
        }),
    responses: responsesOf(operation),
  };
}

/** Path parameters from the route string (`{name}`), then the query's keys; all strings. */
function parametersOf(operation: Operation): Record<string, unknown>[] {
  const pathParams = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
  const query = operation.query === undefined ? [] : Object.keys(operation.query.shape);
  return [
    ...pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...query.map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
  ];
}

function responsesOf(operation: Operation): Record<string, unknown> {
  const errorRef = { $ref: '#/components/schemas/Error' };
  const codes = ['400', '401', '403', '404', ...(operation.needsHistory === true ? ['503'] : [])];
  return {
    200: {
      description: 'OK',
      content: { 'application/json': { schema: jsonSchema(operation.response) } },
    },
    ...(operation.accepted === undefined
      ? {}
      : {
          202: {
            description: 'Accepted: it goes on in the background; Location says where to follow it',
            headers: { Location: { schema: { type: 'string' } } },
            content: { 'application/json': { schema: jsonSchema(operation.response) } },
          },
        }),
    ...Object.fromEntries(
      codes.map((code) => [
        code,
        { description: code, content: { 'application/json': { schema: errorRef } } },
      ]),
    ),
  };
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
  });
  return rest;
}
