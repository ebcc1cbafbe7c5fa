import { endpoints, type EndpointRoute } from '../src';
import { openHoursQuery } from '../src/open-hours-query';
import { SvcParamError } from '../src';
import { validateQuery, type QueryViolation } from '../src/validate-query';

function check(route: EndpointRoute, query: unknown) {
  return validateQuery(endpoints[route], query);
}

function violationsOf(route: EndpointRoute, query: unknown): QueryViolation[] {
  const result = check(route, query);
  return result.ok ? [] : result.violations;
}

/** Violations that name `parameter`; cross-field rules of other parameters do not count. */
function violationsNaming(route: EndpointRoute, query: object, parameter: string) {
  return violationsOf(route, query).filter((violation) => violation.parameter === parameter);
}

describe('limit and offset (spec §2, §8)', () => {
  const limitRule = { parameter: 'limit', rule: 'must be an integer from 0 to 100' };

  it('accepts a limit of 0 and of 100', () => {
    const low = check('GET /conf/jobs', { limit: 0 });
    const high = check('GET /conf/jobs', { limit: 100 });

    expect(low).toEqual({ ok: true, query: { limit: 0 } });
    expect(high).toEqual({ ok: true, query: { limit: 100 } });
  });

  it.each([101, -1, 2.5, '10'])('rejects a limit of %p', (limit) => {
    const violations = violationsOf('GET /partners', { limit });

    expect(violations).toEqual([limitRule]);
  });

  it('rejects a negative offset and accepts 0', () => {
    const negative = violationsOf('GET /acq/po-lines', { offset: -1 });
    const zero = check('GET /acq/po-lines', { offset: 0 });

    expect(negative).toEqual([{ parameter: 'offset', rule: 'must be an integer of 0 or more' }]);
    expect(zero.ok).toBe(true);
  });

  it('injects no defaults: absent parameters stay absent, undefined ones are dropped', () => {
    const empty = check('GET /acq/funds', {});
    const undefinedLimit = check('GET /acq/funds', { limit: undefined, offset: 20 });

    expect(empty).toEqual({ ok: true, query: {} });
    expect(undefinedLimit).toEqual({ ok: true, query: { offset: 20 } });
  });
});

describe('enumerations (spec §3, §4)', () => {
  const cases: [EndpointRoute, string, string[], string, object?][] = [
    ['GET /conf/departments', 'type', ['DIGI', 'ALL'], 'digi'],
    ['GET /conf/departments', 'view', ['FULL', 'brief'], 'full'],
    ['GET /conf/general', 'expand', ['ingest_form'], 'ingest-form'],
    ['GET /conf/jobs', 'type', ['MANUAL', 'SCHEDULED', 'OTHER'], 'manual'],
    [
      'GET /conf/jobs/{job_id}/instances/{instance_id}/download',
      'download_format',
      ['XML', 'BINARY'],
      'xml',
    ],
    ['GET /conf/letters', 'type', ['LETTER', 'COMPONENT'], 'Letter'],
    ['GET /conf/reminders', 'order_by', ['type', 'status', 'reminder_date'], 'TYPE'],
    ['GET /conf/reminders', 'direction', ['asc', 'desc'], 'ASC'],
    ['GET /conf/reminders', 'entity_type', ['BIB_MMS'], 'BIB'],
    ['GET /conf/sets', 'set_type', ['ITEMIZED', 'LOGICAL'], 'itemized'],
    ['GET /conf/sets', 'set_origin', ['UI', 'UI_CZ'], 'UI-CZ'],
    ['GET /partners', 'status', ['ACTIVE', 'INACTIVE'], 'active'],
    ['GET /acq/currencies', 'mode', ['ALL', 'Subset', 'Ratio'], 'RATIO'],
    ['GET /acq/fiscal-periods', 'mode', ['ALL', 'Current'], 'CURRENT'],
    ['GET /acq/funds', 'view', ['full', 'brief'], 'FULL'],
    ['GET /acq/funds', 'mode', ['POL', 'ALL'], 'pol'],
    ['GET /acq/funds', 'status', ['ALL', 'ACTIVE', 'INACTIVE'], 'Active'],
    ['GET /acq/funds', 'entity_type', ['ALL', 'LEDGER', 'SUMMARY', 'ALLOCATED'], 'ledger'],
    ['GET /acq/funds/{fund_id}', 'view', ['full', 'brief'], 'Brief'],
    ['POST /acq/funds', 'rules_level', ['fund', 'parent'], 'FUND'],
    ['PUT /acq/funds/{fund_id}', 'rules_level', ['fund', 'parent'], 'ledger'],
    [
      'GET /acq/funds/{fund_id}/transactions',
      'filter',
      ['ALL', 'ALLOCATION', 'EXPENDITURE', 'ENCUMBRANCE', 'DISENCUMBRANCE', 'TRANSFER'],
      'allocation',
    ],
    ['GET /acq/invoices/', 'base_status', ['ACTIVE', 'CLOSED'], 'closed'],
    ['GET /acq/invoices/', 'view', ['brief'], 'full'],
    ['GET /acq/invoices/', 'expand', ['none', 'attachments'], 'NONE'],
    ['GET /acq/invoices/{invoice_id}', 'expand', ['none', 'attachments'], 'attachment'],
    ['GET /acq/invoices/{invoice_id}/attachments/{attachment_id}', 'expand', ['content'], 'none'],
    [
      'GET /acq/licenses/',
      'status',
      ['ACTIVE', 'DELETED', 'DRAFT', 'EXPIRED', 'RETIRED', 'ALL'],
      'active',
    ],
    ['GET /acq/licenses/', 'type', ['LICENSE', 'NEGOTIATION', 'ADDENDUM', 'ALL'], 'license'],
    ['GET /acq/licenses/', 'expand', ['none', 'attachments'], 'None'],
    ['GET /acq/licenses/{license_code}', 'expand', ['none', 'attachments'], 'ATTACHMENTS'],
    [
      'GET /acq/po-lines',
      'status',
      ['ALL', 'ACTIVE', 'CLOSED', 'CANCELLED', 'ALL_WITH_CLOSED'],
      'all',
    ],
    [
      'GET /acq/po-lines',
      'order_by',
      [
        'number',
        'title',
        'created_date',
        'po_number',
        'enumeration_a',
        'enumeration_b',
        'enumeration_c',
        'chronology_i',
        'chronology_j',
        'chronology_k',
        'item_description',
      ],
      'Title',
      // Item fields sort only a search on item fields (spec §4.13), tested on its own below.
      { q: 'enumeration_a=1' },
    ],
    ['GET /acq/po-lines', 'direction', ['asc', 'desc'], 'DESC'],
  ];

  it.each(cases)('%s %s accepts exactly %j', (route, parameter, values, nearMiss, base = {}) => {
    const accepted = values.map((value) =>
      violationsNaming(route, { ...base, [parameter]: value }, parameter),
    );
    const rejected = violationsOf(route, { ...base, [parameter]: nearMiss });

    expect(accepted).toEqual(values.map(() => []));
    expect(rejected).toEqual([{ parameter, rule: `must be one of ${values.join(', ')}` }]);
  });

  it('takes include_blank_terms as a boolean, not as text', () => {
    const flag = check('GET /acq/licenses/{license_code}', { include_blank_terms: true });
    const textual = violationsOf('GET /acq/licenses/{license_code}', {
      include_blank_terms: 'true',
    });

    expect(flag).toEqual({ ok: true, query: { include_blank_terms: true } });
    expect(textual).toEqual([{ parameter: 'include_blank_terms', rule: 'must be true or false' }]);
  });
});

describe('op (spec §3)', () => {
  const cases: [EndpointRoute, string[], string][] = [
    ['POST /conf/jobs/{job_id}', ['run'], 'RUN'],
    ['POST /conf/md-import-profiles/{profile_id}', ['run'], 'start'],
    ['POST /acq/funds/{fund_id}', ['activate', 'deactivate'], 'ACTIVATE'],
    [
      'POST /acq/invoices/{invoice_id}',
      ['mark_in_erp', 'paid', 'process_invoice', 'rejected'],
      'pay',
    ],
  ];

  it.each(cases)('%s requires op, one of %j', (route, values, nearMiss) => {
    const rule = `is required and must be one of ${values.join(', ')}`;

    const accepted = values.map((op) => check(route, { op }));
    const missing = violationsOf(route, {});
    const wrong = violationsOf(route, { op: nearMiss });

    expect(accepted).toEqual(values.map((op) => ({ ok: true, query: { op } })));
    expect(missing).toEqual([{ parameter: 'op', rule }]);
    expect(wrong).toEqual([{ parameter: 'op', rule }]);
  });
});

describe('dates', () => {
  const isoRule = 'must be a calendar date written YYYY-MM-DD';

  it('accepts a real YYYY-MM-DD date, 29 February of a leap year included', () => {
    const result = check('GET /conf/jobs/{job_id}/instances', { submit_date_from: '2024-02-29' });

    expect(result).toEqual({ ok: true, query: { submit_date_from: '2024-02-29' } });
  });

  it.each(['2024-02-30', '2023-02-29', '2024-13-01', '2024-2-3', '20240105', '2024-01-05T00:00'])(
    'rejects %p where YYYY-MM-DD is required',
    (date) => {
      const violations = violationsOf('GET /acq/licenses/', { create_date_from: date });

      expect(violations).toEqual([{ parameter: 'create_date_from', rule: isoRule }]);
    },
  );

  it('takes exchange_date as YYYYMMDD and rejects YYYY-MM-DD or an impossible day', () => {
    const compact = check('GET /acq/currencies', { mode: 'Ratio', exchange_date: '20240229' });
    const dashed = violationsOf('GET /acq/currencies', {
      mode: 'Ratio',
      exchange_date: '2024-02-29',
    });
    const impossible = violationsOf('GET /acq/currencies', {
      mode: 'Ratio',
      exchange_date: '20230229',
    });

    const rule = { parameter: 'exchange_date', rule: 'must be a calendar date written YYYYMMDD' };
    expect(compact.ok).toBe(true);
    expect(dashed).toEqual([rule]);
    expect(impossible).toEqual([rule]);
  });
});

describe('library open hours (spec §4.2 rules, §8)', () => {
  // Today is 2025-03-15 (UTC): the window runs from 2024-03-15 to 2028-03-15.
  const schema = openHoursQuery(() => new Date('2025-03-15T22:30:00Z'));
  const window =
    'must lie between one year before and three years after today (2024-03-15 to 2028-03-15)';
  const oneMonth =
    'must be at most 30 days after from: one request covers at most one month of days (31 counting both ends)';

  function openHours(query: object) {
    return validateQuery({ query: schema }, query);
  }

  const edges: [string, object, object, QueryViolation][] = [
    [
      '31 days counting both ends, not 32',
      { from: '2025-03-15', to: '2025-04-14' },
      { from: '2025-03-15', to: '2025-04-15' },
      { parameter: 'to', rule: oneMonth },
    ],
    [
      'the 1st to the 31st of a 31-day month, not to the 1st of the next',
      { from: '2025-05-01', to: '2025-05-31' },
      { from: '2025-05-01', to: '2025-06-01' },
      { parameter: 'to', rule: oneMonth },
    ],
    [
      '31 days from February 1st, past the end of February',
      { from: '2026-02-01', to: '2026-03-03' },
      { from: '2026-02-01', to: '2026-03-04' },
      { parameter: 'to', rule: oneMonth },
    ],
    [
      'from exactly one year back, not the day before',
      { from: '2024-03-15', to: '2024-03-20' },
      { from: '2024-03-14', to: '2024-03-20' },
      { parameter: 'from', rule: window },
    ],
    [
      'to exactly three years ahead, not the day after',
      { from: '2028-03-01', to: '2028-03-15' },
      { from: '2028-03-01', to: '2028-03-16' },
      { parameter: 'to', rule: window },
    ],
  ];

  it.each(edges)('accepts %s', (_edge, inside, beyond, violation) => {
    const accepted = openHours(inside);
    const refused = openHours(beyond);

    expect(accepted.ok).toBe(true);
    expect(refused).toEqual({ ok: false, violations: [violation] });
  });

  it('measures the 31 days from today when from is left out', () => {
    const accepted = openHours({ to: '2025-04-14' });
    const result = openHours({ to: '2025-04-15' });

    expect(accepted.ok).toBe(true);

    expect(result).toEqual({
      ok: false,
      violations: [
        {
          parameter: 'to',
          rule: 'must be at most 30 days after from (default today): one request covers at most one month of days (31 counting both ends)',
        },
      ],
    });
  });

  it('rejects a from whose default to (plus one week) would pass three years ahead', () => {
    const result = openHours({ from: '2028-03-10' });

    expect(result).toEqual({
      ok: false,
      violations: [
        {
          parameter: 'from',
          rule: 'must leave the default to (from plus one week) between one year before and three years after today (2024-03-15 to 2028-03-15)',
        },
      ],
    });
  });

  it('rejects a to before from', () => {
    const result = openHours({ from: '2025-03-20', to: '2025-03-19' });

    expect(result).toEqual({
      ok: false,
      violations: [{ parameter: 'to', rule: 'must not be before from' }],
    });
  });

  it('on February 29th reads one year back and three years ahead as February 28th', () => {
    const leap = openHoursQuery(() => new Date('2028-02-29T12:00:00Z'));
    const at = (query: object) => validateQuery({ query: leap }, query).ok;

    expect([at({ from: '2027-02-28', to: '2027-03-01' }), at({ from: '2027-02-27' })]).toEqual([
      true,
      false,
    ]);
    expect([
      at({ from: '2031-02-20', to: '2031-02-28' }),
      at({ from: '2031-02-20', to: '2031-03-01' }),
    ]).toEqual([true, false]);
  });

  it('reads the clock at each check, not when the schema is built', () => {
    let now = new Date('2025-03-15T00:00:00Z');
    const moving = openHoursQuery(() => now);
    const query = { from: '2024-03-15', to: '2024-03-20' };

    const before = validateQuery({ query: moving }, query);
    now = new Date('2025-03-16T00:00:00Z');
    const after = validateQuery({ query: moving }, query);

    expect(before.ok).toBe(true);
    expect(after.ok).toBe(false);
  });

  it('uses the real clock in the table row', () => {
    const today = new Date().toISOString().slice(0, 10);

    const result = check('GET /conf/libraries/{libraryCode}/open-hours', { from: today });

    expect(result).toEqual({ ok: true, query: { from: today } });
  });
});

describe('currencies (spec §4.9 rules)', () => {
  it('passes the Ratio parameters in any mode: they apply in Ratio mode only, nothing refuses them', () => {
    const defaultMode = check('GET /acq/currencies', { target_currency: 'USD' });
    const subset = check('GET /acq/currencies', {
      mode: 'Subset',
      source_currency: 'EUR',
      exchange_date: '20240105',
    });

    expect(defaultMode).toEqual({ ok: true, query: { target_currency: 'USD' } });
    expect(subset).toEqual({
      ok: true,
      query: { mode: 'Subset', source_currency: 'EUR', exchange_date: '20240105' },
    });
  });

  it('still checks exchange_date as a YYYYMMDD date outside Ratio mode', () => {
    const violations = violationsOf('GET /acq/currencies', { exchange_date: '2024-01-05' });

    expect(violations).toEqual([
      { parameter: 'exchange_date', rule: 'must be a calendar date written YYYYMMDD' },
    ]);
  });
});

describe('jobs (spec §4.3)', () => {
  it.each(['MANUAL', 'OTHER', 'SCHEDULED'])(
    'passes profile_id with type %s: "only for scheduled jobs" names what it filters, no refusal',
    (type) => {
      const result = check('GET /conf/jobs', { type, profile_id: '123' });

      expect(result).toEqual({ ok: true, query: { type, profile_id: '123' } });
    },
  );
});

describe('search query q (spec §2 and each endpoint)', () => {
  const cases: [EndpointRoute, string[], object][] = [
    ['GET /conf/integration-profiles', ['created_by', 'name'], {}],
    ['GET /conf/sets', ['created_by', 'name'], {}],
    ['GET /acq/funds', ['all', 'fund_code', 'description', 'external_id', 'name'], { mode: 'ALL' }],
    [
      'GET /acq/funds/{fund_id}/transactions',
      ['amount', 'po_line', 'invoice_number', 'borrowing_request_id'],
      {},
    ],
    [
      'GET /acq/invoices/',
      [
        'invoice_number',
        'vendor_code',
        'additional_pol_reference',
        'invoice_reference_number',
        'pol_number',
        'pol_title',
        'po_number',
        'vendor_name',
        'all',
      ],
      {},
    ],
    ['GET /acq/invoices/{invoice_id}/lines', ['invoice_line_number'], {}],
    ['GET /acq/licenses/', ['all', 'name', 'code', 'licensor'], {}],
    [
      'GET /acq/po-lines',
      [
        'title',
        'author',
        'mms_id',
        'publisher',
        'publication_year',
        'publication_place',
        'issn_isbn',
        'shelving_location',
        'vendor_code',
        'vendor_name',
        'vendor_account',
        'fund_code',
        'fund_name',
        'number',
        'po_number',
        'invoice_reference',
        'all',
        'enumeration_a',
        'enumeration_b',
        'enumeration_c',
        'chronology_i',
        'chronology_j',
        'chronology_k',
        'item_description',
        'item_library',
      ],
      {},
    ],
  ];

  /** spec §4.11, §4.12: q "default all", so the bare value all is accepted there. */
  const bareAll: readonly EndpointRoute[] = ['GET /acq/invoices/', 'GET /acq/licenses/'];

  it.each(cases)('%s searches exactly %j, by field~text or field=value', (route, fields, base) => {
    const orAll = bareAll.includes(route) ? ', or all (no filter, the default)' : '';
    const rule = `must be <field>~<text> or <field>=<value> with <field> one of ${fields.join(', ')}${orAll}`;

    const contains = fields.map((field) => check(route, { ...base, q: `${field}~some text` }).ok);
    const equals = fields.map((field) => check(route, { ...base, q: `${field}=A=1` }).ok);
    const unknownField = violationsOf(route, { ...base, q: 'not_a_field~x' });

    expect(contains).toEqual(fields.map(() => true));
    expect(equals).toEqual(fields.map(() => true));
    expect(unknownField).toEqual([{ parameter: 'q', rule }]);
  });

  it.each(cases)(
    '%s takes the bare q=all only where the spec gives q "default all"',
    (route, _fields, base) => {
      const result = check(route, { ...base, q: 'all' });

      expect(result.ok).toBe(bareAll.includes(route));
    },
  );

  it.each(['amount', 'amount~', 'amount 12', '~12', 'Amount~12'])(
    'rejects the malformed q %p',
    (q) => {
      const violations = violationsOf('GET /acq/funds/{fund_id}/transactions', { q });

      expect(violations.map((violation) => violation.parameter)).toEqual(['q']);
      expect(violations[0]?.rule).toMatch(/^must be <field>~<text> or <field>=<value>/);
    },
  );
});

describe('cross-field rules', () => {
  const FUND_POL_RULE =
    'may search only fund_code, or all (which then searches fund_code), when mode is POL (the default; spec §4.10); set mode=ALL to search another field';

  const rules: [string, EndpointRoute, object, QueryViolation, object][] = [
    [
      'job instances: submit_date_to not before submit_date_from (the same day is fine)',
      'GET /conf/jobs/{job_id}/instances',
      { submit_date_from: '2024-05-02', submit_date_to: '2024-05-01' },
      { parameter: 'submit_date_to', rule: 'must not be before submit_date_from' },
      { submit_date_from: '2024-05-02', submit_date_to: '2024-05-02' },
    ],
    [
      'currencies: Ratio mode needs exchange_date, the currencies being optional (spec §4.9)',
      'GET /acq/currencies',
      { mode: 'Ratio', source_currency: 'EUR' },
      { parameter: 'exchange_date', rule: 'is required when mode is Ratio' },
      { mode: 'Ratio', exchange_date: '20240105' },
    ],
    [
      'funds: mode POL searches fund_code only (spec §4.10)',
      'GET /acq/funds',
      { mode: 'POL', q: 'name~books' },
      { parameter: 'q', rule: FUND_POL_RULE },
      { mode: 'POL', q: 'fund_code~BK' },
    ],
    [
      'funds: mode POL takes all, which then searches fund_code (spec §4.10)',
      'GET /acq/funds',
      { mode: 'POL', q: 'external_id=77' },
      { parameter: 'q', rule: FUND_POL_RULE },
      { mode: 'POL', q: 'all~BK' },
    ],
    [
      'funds: POL is the default mode, so its q rule holds without mode',
      'GET /acq/funds',
      { q: 'description~books' },
      { parameter: 'q', rule: FUND_POL_RULE },
      { q: 'all~books' },
    ],
    [
      'PO lines: an item-field sort needs an item-field search (spec §4.13)',
      'GET /acq/po-lines',
      { q: 'title~history', order_by: 'chronology_i' },
      { parameter: 'order_by', rule: 'may name an item field only when q searches an item field' },
      { q: 'enumeration_a=12', order_by: 'chronology_i' },
    ],
  ];

  it.each(rules)('%s', (_rule, route, refused, violation, accepted) => {
    const refusal = violationsOf(route, refused);
    const acceptance = check(route, accepted);

    expect(refusal).toEqual([violation]);
    expect(acceptance).toEqual({ ok: true, query: accepted });
  });
});

describe('other parameter rules', () => {
  it('rejects an unknown parameter by name, the API key included, without its value', () => {
    const violations = violationsOf('GET /conf/jobs', { apikey: 'secret-key-XYZ', lim: 5 });

    expect(violations).toEqual([
      { parameter: 'apikey', rule: 'is not a parameter of this operation' },
      { parameter: 'lim', rule: 'is not a parameter of this operation' },
    ]);
    expect(JSON.stringify(violations)).not.toContain('XYZ');
  });

  it('reports every broken rule of one query', () => {
    const violations = violationsOf('GET /conf/reminders', {
      limit: 500,
      direction: 'up',
      entity_type: 'ITEM',
    });

    expect(violations.map((violation) => violation.parameter)).toEqual([
      'limit',
      'direction',
      'entity_type',
    ]);
  });

  it('treats a missing query as no parameters and rejects a query that is not an object', () => {
    const missing = check('GET /conf/libraries', undefined);
    const notAnObject = violationsOf('GET /conf/libraries', 'limit=5');

    expect(missing).toEqual({ ok: true, query: {} });
    expect(notAnObject).toEqual([
      { parameter: '(query)', rule: 'must be an object of parameters' },
    ]);
  });
});

describe('vat rule of invoice and invoice-line bodies (spec §4.11 code 60252)', () => {
  const rule = 'the vat is given as a percentage or as an amount, not both (spec §4.11 code 60252)';
  const createInvoice = endpoints['POST /acq/invoices'];
  const updateLine = endpoints['PUT /acq/invoices/{invoice_id}/lines/{invoice_line_id}'];

  it('refuses a vat object with both a percentage and an amount', () => {
    const result = createInvoice.bodyRule?.({
      number: 'INV-1',
      invoice_vat: { percentage: 17, vat_amount: 3.4 },
    });

    expect(result).toBe(rule);
  });

  it('refuses top-level vat_percentage with vat_amount', () => {
    const result = updateLine.bodyRule?.({ vat_percentage: '5', vat_amount: '1.20' });

    expect(result).toBe(rule);
  });

  it('refuses both in an invoice-line vat object and in vat_info', () => {
    const lineVat = updateLine.bodyRule?.({ invoice_line_vat: { percentage: 5, amount: 2 } });
    const vatInfo = createInvoice.bodyRule?.({ vat_info: { percentage: 5, amount: 2 } });

    expect([lineVat, vatInfo]).toEqual([rule, rule]);
  });

  it('accepts a percentage alone, an amount alone, and zeros sent back as read', () => {
    const percentage = createInvoice.bodyRule?.({ invoice_vat: { percentage: 17 } });
    const amount = createInvoice.bodyRule?.({ vat_amount: 3.4 });
    const zeros = createInvoice.bodyRule?.({ invoice_vat: { percentage: 0, vat_amount: 0.0 } });

    expect([percentage, amount, zeros]).toEqual([undefined, undefined, undefined]);
  });

  it('does not take a fund-distribution amount for a vat amount', () => {
    const result = createInvoice.bodyRule?.({
      vat_percentage: 17,
      fund_distribution: [{ amount: 100 }],
    });

    expect(result).toBeUndefined();
  });

  it('checks an XML body too', () => {
    const both =
      '<invoice><invoice_vat><percentage>17</percentage><vat_amount>3.4</vat_amount></invoice_vat></invoice>';
    const one = '<invoice><invoice_vat><percentage>17</percentage></invoice_vat></invoice>';

    expect(createInvoice.bodyRule?.(both)).toBe(rule);
    expect(createInvoice.bodyRule?.(one)).toBeUndefined();
  });

  it('does not combine an invoice-level percentage with a line amount (different objects)', () => {
    const json = createInvoice.bodyRule?.({
      vat_percentage: 17,
      invoice_lines: { invoice_line: [{ invoice_line_vat: { amount: 3 } }] },
    });
    const xml = createInvoice.bodyRule?.(
      '<invoice><vat_percentage>17</vat_percentage><invoice_lines><invoice_line>' +
        '<invoice_line_vat><amount>3</amount></invoice_line_vat>' +
        '</invoice_line></invoice_lines></invoice>',
    );

    expect([json, xml]).toEqual([undefined, undefined]);
  });

  it('checks an XML line body on its own object, with a namespace and a declaration', () => {
    const both =
      '<?xml version="1.0" encoding="UTF-8"?><invoice_line xmlns="urn:x"><vat_percentage>5</vat_percentage>' +
      '<invoice_line_vat><amount>2</amount></invoice_line_vat></invoice_line>';
    const zeros =
      '<invoice_line><invoice_line_vat><percentage>0.0</percentage><amount>0.0</amount></invoice_line_vat></invoice_line>';

    expect(updateLine.bodyRule?.(both)).toBe(rule);
    expect(updateLine.bodyRule?.(zeros)).toBeUndefined();
  });

  it('leaves a body that is not well-formed XML to the platform', () => {
    const broken = '<invoice><vat_percentage>5</vat_percentage><vat_amount>2</invoice>';

    expect(createInvoice.bodyRule?.(broken)).toBeUndefined();
  });

  it('does not count a top-level amount of the line as a vat amount', () => {
    const result = updateLine.bodyRule?.({ vat_percentage: 5, amount: 20 });

    expect(result).toBeUndefined();
  });
});

describe('SvcParamError', () => {
  it('names the operation, the parameter and the rule in its message and fields', () => {
    const error = new SvcParamError({
      operation: 'listJobs',
      parameter: 'limit',
      rule: 'must be an integer from 0 to 100',
    });

    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SvcParamError');
    expect(error.message).toBe('listJobs: parameter limit: must be an integer from 0 to 100');
    expect([error.operation, error.parameter, error.rule]).toEqual([
      'listJobs',
      'limit',
      'must be an integer from 0 to 100',
    ]);
  });
});
