import { platformAreas } from '../../src/areas';
import { allowedCodes, findOperation } from '../../src/find-operation';
import { GENERAL_CODES, OPERATION_CODES, type OperationCodes } from '../../src/operation-codes';
import { badRequest } from '../../src/sandbox-error';
import { startSandbox, type Reply, type SandboxUnderTest } from '../../src/testing/start-sandbox';

/**
 * The sandbox answers an operation only with the 400 codes of its spec row or
 * the §7 rule 2 general codes it declares. The declaration is data (operation-codes.ts); the
 * error handler's guard turns any other 400 into a 500 UNDECLARED_CODE, so walking every
 * operation with bad ids, bad parameters and bad bodies and seeing no 500 shows the answers keep
 * to the rows.
 */

const NO_BODY_WRITES = [
  'POST /conf/md-import-profiles/{profile_id}',
  'POST /partners/operation/test',
  'POST /acq/funds/{fund_id}',
];

/** Query parameters with values no operation accepts. */
const BAD_QUERIES = [
  '',
  'limit=101',
  'offset=-1',
  'q=nosuchfield~x',
  'q=broken',
  'status=NOPE&type=NOPE&mode=NOPE&view=NOPE&expand=NOPE',
  'op=NOPE&filter=NOPE&scope=NOPE&lang=xx-yy',
  'from=2020-13-01&to=nope&submit_date_from=x&exchange_date=1',
  'category=NOPE&entity_type=NOPE&order_by=NOPE&direction=up',
  'download_format=PDF&line_type=NOPE&population=NOPE&rules_level=NOPE',
  'library=NOPE&owner=NOPE&fiscal_period=NOPE&parent_id=NOPE&base_status=NOPE',
  'source_currency=XXX&target_currency=YYY&include_blank_terms=maybe&user_group=a&user_group=b',
];

const BAD_BODIES: readonly string[] = [
  '{',
  '[]',
  '{}',
  '{"code":"","name":"","type":"NOPE","status":"NOPE","id":"other"}',
  '{"content":"%%%","file_name":"a","entity":{"entity_type":"NOPE"},"row":[{"default":true},{"default":true}]}',
];

function pathOf(route: string, ids: Readonly<Record<string, string>>): string {
  const path = route.slice(route.indexOf(' ') + 1);
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => ids[name] ?? 'NOPE-1');
}

function methodOf(route: string): string {
  return route.slice(0, route.indexOf(' '));
}

/** The first item's field of a list answer, to address a real resource. */
async function firstOf(
  sut: SandboxUnderTest,
  path: string,
  key: string,
  field = 'id',
): Promise<string> {
  const reply = await sut.api('GET', path);
  const items = reply.json[key] as Record<string, unknown>[] | undefined;
  const value = items?.[0]?.[field];
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new Error(`no ${key} in ${path}`);
  }
  return String(value);
}

async function realIds(sut: SandboxUnderTest): Promise<Record<string, string>> {
  const invoiceId = await firstOf(sut, '/acq/invoices', 'invoice');
  return {
    codeTableName: await firstOf(sut, '/conf/code-tables', 'code_table', 'name'),
    mappingTableName: 'VendorErpMapping',
    libraryCode: 'MAIN',
    circDeskCode: 'MAIN_DESK1',
    locationCode: await firstOf(sut, '/conf/libraries/MAIN/locations', 'location', 'code'),
    job_id: 'S7781',
    instance_id: await firstOf(sut, '/conf/jobs/S7781/instances', 'job_instance'),
    deposit_profile_id: await firstOf(sut, '/conf/deposit-profiles', 'deposit_profile'),
    id: await firstOf(sut, '/conf/integration-profiles', 'integration_profile'),
    profile_id: await firstOf(sut, '/conf/md-import-profiles', 'import_profile'),
    letterCode: 'footer',
    printer_id: await firstOf(sut, '/conf/printers', 'printer'),
    reminder_id: await firstOf(sut, '/conf/reminders?from=2000-01-01&to=2099-01-01', 'reminder'),
    license_term_code: await firstOf(sut, '/conf/license-terms', 'license_term', 'code'),
    partner_code: 'RELAIS01',
    fund_id: await firstOf(sut, '/acq/funds?mode=ALL', 'fund'),
    invoice_id: invoiceId,
    invoice_line_id: await firstOf(sut, `/acq/invoices/${invoiceId}/lines`, 'invoice_line'),
    license_code: 'LIC-NATURE',
  };
}

/** Every probe of one operation: its answers (status, code), each checked against the row. */
async function probe(
  sut: SandboxUnderTest,
  operation: OperationCodes,
  ids: Readonly<Record<string, string>>,
): Promise<string[]> {
  const method = methodOf(operation.route);
  const path = pathOf(operation.route, ids);
  const bodies = operation.body === undefined ? [undefined] : BAD_BODIES;
  const failures: string[] = [];
  for (const query of BAD_QUERIES) {
    for (const body of bodies) {
      const url = query === '' ? path : `${path}?${query}`;
      const reply: Reply = await sut.api(method, url, body === undefined ? {} : { body });
      const allowed = allowedCodes(operation);
      const wrong =
        reply.status === 500 ||
        (reply.status === 400 && !allowed.has(reply.errorCode ?? '')) ||
        (reply.status === 404 && reply.text.includes('No such path'));
      if (wrong) {
        failures.push(`${method} ${url} ${body ?? ''} → ${String(reply.status)} ${reply.text}`);
      }
    }
  }
  return failures;
}

describe('the 400 codes of every operation (spec §4 rows and §7 rule 2)', () => {
  it('declares the 94 operations once each, with general codes from §7 rule 2 only', () => {
    expect(OPERATION_CODES).toHaveLength(94);
    expect(new Set(OPERATION_CODES.map((operation) => operation.route)).size).toBe(94);
    for (const operation of OPERATION_CODES) {
      for (const general of operation.general ?? []) {
        expect(Object.keys(GENERAL_CODES)).toContain(general);
        expect(operation.row).not.toContain(general);
      }
      // §7 rule 2: 402119 is general in the configuration and acquisitions areas only.
      if ((operation.general ?? []).includes('402119')) {
        expect(operation.route).toMatch(/^\w+ \/(conf|acq)\//);
      }
    }
  });

  it('gives a body code, from the row or a declared general code, exactly to the writes with a body', () => {
    for (const operation of OPERATION_CODES) {
      const takesBody =
        /^(POST|PUT) /.test(operation.route) && !NO_BODY_WRITES.includes(operation.route);
      expect([operation.route, operation.body !== undefined]).toEqual([operation.route, takesBody]);
      if (operation.body !== undefined) {
        expect([operation.route, allowedCodes(operation).has(operation.body)]).toEqual([
          operation.route,
          true,
        ]);
      }
    }
  });

  it('finds the operation of a path, preferring literal segments and ignoring a trailing slash', () => {
    const route = (method: string, path: string) =>
      findOperation(OPERATION_CODES, method, path)?.route;
    expect(route('POST', '/partners/operation/test')).toBe('POST /partners/operation/test');
    expect(route('GET', '/partners/X1')).toBe('GET /partners/{partner_code}');
    expect(route('GET', '/acq/invoices')).toBe('GET /acq/invoices/');
    expect(route('GET', '/conf/libraries/MAIN/circ-desks')).toBe(
      'GET /conf/libraries/{libraryCode}/circ-desks/',
    );
    expect(route('DELETE', '/partners/')).toBe('DELETE /partners/{partner_code}');
    expect(route('GET', '/conf/nothing')).toBeUndefined();
  });

  describe('walking the sandbox', () => {
    let sut: SandboxUnderTest;
    beforeEach(async () => {
      sut = await startSandbox({}, { areas: platformAreas });
    });
    afterEach(async () => {
      await sut.close();
    });

    it('answers every operation with bad ids, parameters and bodies only with declared codes', async () => {
      const ids = await realIds(sut);
      const failures: string[] = [];
      for (const operation of OPERATION_CODES) {
        failures.push(...(await probe(sut, operation, {})));
        failures.push(...(await probe(sut, operation, ids)));
      }
      expect(failures).toEqual([]);
    });

    it('answers an unreadable body with the operation’s own body code', async () => {
      for (const operation of OPERATION_CODES.filter((op) => op.body !== undefined)) {
        const method = methodOf(operation.route);
        const path = pathOf(operation.route, {});
        const json = await sut.api(method, path, { body: '{"broken": ' });
        const xml = await sut.api(method, path, {
          body: '<partner><code>',
          headers: { 'content-type': 'application/xml' },
        });
        const expected = operation.xmlOnly === true ? '60105' : operation.body;
        expect([operation.route, json.status, json.errorCode]).toEqual([
          operation.route,
          400,
          expected,
        ]);
        expect([operation.route, xml.status, xml.errorCode]).toEqual([
          operation.route,
          400,
          operation.body,
        ]);
      }
    });

    it('turns a 400 code the operation does not declare into a 500, naming the operation', async () => {
      // An area that answers the fund read with a code its row lacks (401873, the old answer).
      const strict = await startSandbox(
        {},
        {
          areas: [
            (router) => {
              router.get('/acq/funds/:fund_id', () => {
                throw badRequest('401873', 'Fund id not valid');
              });
            },
          ],
        },
      );
      try {
        const reply = await strict.api('GET', '/acq/funds/1');
        expect(reply.status).toBe(500);
        expect(reply.errorCode).toBe('UNDECLARED_CODE');
        expect(reply.text).toContain('GET /acq/funds/{fund_id}');
      } finally {
        await strict.close();
      }
    });
  });
});
