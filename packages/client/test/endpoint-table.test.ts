import { z } from 'zod';
import { defineArea, type Endpoint } from '../src';
import { endpointByOperation, endpoints, type EndpointRoute } from '../src';
import { validateQuery } from '../src/validate-query';
import type { SpecOperations } from '../scripts/extract-spec-operations';
import fixture from './fixtures/spec-operations.json';

/**
 * The table is checked against the spec's §4 tables: the rows, their 400 codes, their flags and
 * their parameter names come from test/fixtures/spec-operations.json, which
 * packages/client/scripts/extract-spec-operations.ts reads out of the spec, so the table cannot drift from the text.
 */
const spec: SpecOperations = fixture;
const specRows = spec.operations;
const rows: [string, Endpoint][] = Object.entries(endpoints);

function queryShapeOf(endpoint: Endpoint): Record<string, unknown> {
  if (!(endpoint.query instanceof z.ZodObject)) throw new Error(`${endpoint.route}: not an object`);
  return endpoint.query.shape;
}

describe('the operation table', () => {
  it('declares exactly the 94 operations of spec §4, none missing and none invented', () => {
    const declared = Object.keys(endpoints).sort();
    const specified = specRows.map((row) => row.route).sort();

    const missing = specified.filter((route) => !declared.includes(route));
    const invented = declared.filter((route) => !specified.includes(route));

    expect({ missing, invented }).toEqual({ missing: [], invented: [] });
    expect(specified).toHaveLength(94);
    expect(declared).toHaveLength(94);
  });

  it('keys every row by its own route, split into method and path', () => {
    const mismatched = rows.filter(
      ([key, endpoint]) =>
        key !== endpoint.route || `${endpoint.method} ${endpoint.path}` !== endpoint.route,
    );

    expect(mismatched.map(([key]) => key)).toEqual([]);
  });

  it('holds every 400 code the spec lists for each row, and no other', () => {
    const wrong = specRows.flatMap((row) => {
      const declared = Object.keys(endpoints[row.route as EndpointRoute]?.errors ?? {}).sort();
      const expected = row.codes;
      const missing = expected.filter((code) => !declared.includes(code));
      const invented = declared.filter((code) => !expected.includes(code));
      return missing.length + invented.length === 0
        ? []
        : [{ route: row.route, missing, invented }];
    });

    expect(wrong).toEqual([]);
  });

  it('reads the shared code tables that rows point to', () => {
    const names = spec.sharedCodeTables.map(
      (table) => `${table.name}: ${String(table.codes.length)}`,
    );

    expect(names).toEqual([
      'job submit 400 codes: 15',
      'invoice save codes: 20',
      'invoice line save codes: 13',
      'license save codes: 15',
    ]);
  });

  it('gives every meaning in words', () => {
    const blank = rows.flatMap(([route, endpoint]) =>
      Object.entries(endpoint.errors)
        .filter(([, meaning]) => meaning.trim() === '')
        .map(([code]) => `${route} ${code}`),
    );

    expect(blank).toEqual([]);
  });

  it('names every operation uniquely in camelCase', () => {
    const names = rows.map(([, endpoint]) => endpoint.operation);
    const repeated = names.filter((name, index) => names.indexOf(name) !== index);

    expect(repeated).toEqual([]);
    expect(names.filter((name) => !/^[a-z][a-zA-Z]*$/.test(name))).toEqual([]);
  });

  it('files every row under the area its path starts with', () => {
    const misfiled = rows.filter(([, endpoint]) => !endpoint.path.startsWith(`/${endpoint.area}`));

    expect(misfiled.map(([route]) => route)).toEqual([]);
  });

  it('marks as lists exactly the rows whose spec parameters include limit, with limit and offset', () => {
    const wrong = specRows.flatMap((row) => {
      const endpoint = endpoints[row.route as EndpointRoute];
      const shape = queryShapeOf(endpoint);
      const expected = /\blimit\b/.test(row.parameters);
      const actual = [endpoint.list, 'limit' in shape, 'offset' in shape];
      return actual.every((value) => value === expected) ? [] : [row.route];
    });

    expect(wrong).toEqual([]);
  });

  it('requires a body exactly where the spec gives the operation a body', () => {
    const wrong = specRows.filter(
      (row) =>
        (endpoints[row.route as EndpointRoute].body === 'required') !==
        /\bbody\b/.test(row.parameters),
    );

    expect(wrong.map((row) => row.route)).toEqual([]);
  });

  it('accepts XML only for the letter update and both formats elsewhere', () => {
    const xmlOnly = rows
      .filter(([, endpoint]) => endpoint.bodyFormats.join() === 'xml')
      .map(([route]) => route);
    const others = rows.filter(([, endpoint]) => endpoint.bodyFormats.join() !== 'xml');

    expect(xmlOnly).toEqual(['PUT /conf/letters/{letterCode}']);
    expect(others.every(([, endpoint]) => endpoint.bodyFormats.join() === 'json,xml')).toBe(true);
  });

  it('marks as a download exactly the rows that answer with a file', () => {
    const wrong = specRows.filter(
      (row) => endpoints[row.route as EndpointRoute].download !== row.response.startsWith('file'),
    );

    expect(wrong.map((row) => row.route)).toEqual([]);
  });

  it('declares only query parameters that the spec row names', () => {
    const invented = specRows.flatMap((row) =>
      Object.keys(queryShapeOf(endpoints[row.route as EndpointRoute]))
        .filter((name) => !new RegExp(`\\b${name}\\b`).test(row.parameters))
        .map((name) => `${row.route} ${name}`),
    );

    expect(invented).toEqual([]);
  });

  it('rejects an unknown query parameter on every row', () => {
    const lenient = rows.filter(([, endpoint]) => {
      const result = validateQuery(endpoint, { not_a_parameter: '1' });
      return result.ok || !result.violations.some((v) => v.parameter === 'not_a_parameter');
    });

    expect(lenient.map(([route]) => route)).toEqual([]);
  });

  it('checks the vat rule on the invoice and invoice-line create and update only', () => {
    const withRule = rows.filter(([, endpoint]) => endpoint.bodyRule !== undefined);

    expect(withRule.map(([, endpoint]) => endpoint.operation).sort()).toEqual([
      'createInvoice',
      'createInvoiceLine',
      'updateInvoice',
      'updateInvoiceLine',
    ]);
  });

  it('takes the area from the file and derives method and path from the one route', () => {
    const area = defineArea('partners', [
      {
        route: 'GET /partners/{partner_code}',
        operation: 'getPartner',
        query: z.strictObject({}),
        errors: {},
      },
    ]);
    const row = area['GET /partners/{partner_code}'];

    expect([row.area, row.method, row.path, row.body, row.list, row.download]).toEqual([
      'partners',
      'GET',
      '/partners/{partner_code}',
      'none',
      false,
      false,
    ]);
  });

  it('refuses a route written twice in one area', () => {
    const twice = () =>
      defineArea('acq', [
        { route: 'GET /acq/funds', operation: 'listFunds', query: z.strictObject({}), errors: {} },
        { route: 'GET /acq/funds', operation: 'listFunds2', query: z.strictObject({}), errors: {} },
      ]);

    expect(twice).toThrow('GET /acq/funds is defined twice');
  });

  it('carries the response schema, the refusal explanations and the file flag on their rows', () => {
    const typed = rows.filter(([, endpoint]) => endpoint.response !== undefined);
    const explained = rows.filter(([, endpoint]) => Object.keys(endpoint.refusals).length > 0);
    const files = rows.filter(([, endpoint]) => endpoint.download);

    expect(typed.map(([route]) => route)).toEqual([
      'GET /conf/jobs/{job_id}/instances/{instance_id}',
    ]);
    expect(explained.map(([route, endpoint]) => [route, Object.keys(endpoint.refusals)])).toEqual([
      ['POST /conf/jobs/{job_id}', ['60347', '402222', '402223', '402231']],
    ]);
    expect(files.map(([route]) => route)).toEqual([
      'GET /conf/jobs/{job_id}/instances/{instance_id}/download',
    ]);
  });

  it('finds a row by its operation name', () => {
    const found = endpointByOperation('runJob');
    const unknown = endpointByOperation('launchJob');

    expect(found?.route).toBe('POST /conf/jobs/{job_id}');
    expect(unknown).toBeUndefined();
  });

  it('types the route union from the table keys', () => {
    const known: EndpointRoute = 'GET /acq/po-lines';
    // @ts-expect-error an operation the spec does not list is not a route of the table
    const invented: EndpointRoute = 'GET /acq/vendors';

    expect(endpoints[known].operation).toBe('listPoLines');
    expect(invented in endpoints).toBe(false);
  });
});
