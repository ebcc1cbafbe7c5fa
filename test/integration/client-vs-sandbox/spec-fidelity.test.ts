import { SvcParamError } from '@svcws/client';
import { clientAgainstSandbox, isoDay, items, obj, total } from './client-vs-sandbox';
import type { ClientAgainstSandbox } from './client-vs-sandbox';

const INVOICE_XML_LEVELS =
  '<invoice><vendor>GOBI</vendor><number>GOBI-XML-VAT</number>' +
  `<invoice_date>${isoDay(-1)}</invoice_date><total_amount>10</total_amount>` +
  '<currency>USD</currency><vat_percentage>7</vat_percentage>' +
  '<invoice_lines><invoice_line><invoice_line_vat><amount>3</amount></invoice_line_vat>' +
  '</invoice_line></invoice_lines></invoice>';

/**
 * What the spec allows reaches the sandbox instead of being refused by the client:
 * defaults written out, parameters that only apply in some mode, and each body format with
 * either answer format. The file owns no rows of the table (PARTS): it checks behaviour, not
 * coverage.
 */
describe('client against sandbox: the client refuses nothing the spec allows', () => {
  let env: ClientAgainstSandbox;
  beforeAll(async () => {
    env = await clientAgainstSandbox();
  });
  afterAll(async () => {
    await env.close();
  });

  it('sends expand=none, the stated default, on the invoice and license reads (§4.11, §4.12)', async () => {
    const invoices = await env.request('GET /acq/invoices/', { query: { expand: 'none' } });
    const [first] = items(invoices, 'invoice');
    const invoice = obj(
      await env.request('GET /acq/invoices/{invoice_id}', {
        path: { invoice_id: String(first?.id) },
        query: { expand: 'none' },
      }),
    );
    const licenses = await env.request('GET /acq/licenses/', { query: { expand: 'none' } });
    const license = obj(
      await env.request('GET /acq/licenses/{license_code}', {
        path: { license_code: 'LIC-JSTOR' },
        query: { expand: 'none' },
      }),
    );

    expect(invoice.id).toBe(first?.id);
    expect(invoice.attachment).toBeUndefined();
    expect(Number(total(licenses))).toBeGreaterThan(0);
    expect([license.code, license.attachment]).toEqual(['LIC-JSTOR', undefined]);
  });

  it('passes the Ratio-only currency parameters in the other modes, where they have no effect (§4.9)', async () => {
    const plain = await env.request('GET /acq/currencies', { query: { mode: 'Subset' } });
    const withRatioParameters = await env.request('GET /acq/currencies', {
      query: { mode: 'Subset', source_currency: 'EUR', target_currency: 'USD' },
    });
    const defaultMode = await env.request('GET /acq/currencies', {
      query: { exchange_date: isoDay(-1).replace(/-/g, '') },
    });

    expect(withRatioParameters).toEqual(plain);
    expect(total(defaultMode)).toBe(7);
  });

  it('passes profile_id with type MANUAL and OTHER (§4.3: it is for scheduled jobs)', async () => {
    const manual = await env.request('GET /conf/jobs', {
      query: { type: 'MANUAL', profile_id: '6127400000561' },
    });
    const other = await env.request('GET /conf/jobs', {
      query: { type: 'OTHER', profile_id: '6127400000561' },
    });

    // The profile belongs to a scheduled job: no manual or other job has it.
    expect([total(manual), total(other)]).toEqual([0, 0]);
  });

  it('sends an XML body and reads the answer as JSON (format xml, accept json)', async () => {
    const letter = obj(
      await env.request('PUT /conf/letters/{letterCode}', {
        path: { letterCode: 'FulLoanReceiptLetter' },
        format: 'xml',
        accept: 'json',
        body: '<letter><code>FulLoanReceiptLetter</code><name>Loan receipt (JSON)</name></letter>',
      }),
    );

    expect(letter.name).toBe('Loan receipt (JSON)');
  });

  it('sends a JSON body and reads the answer as XML (accept xml)', async () => {
    const xml = await env.request('POST /partners', {
      accept: 'xml',
      body: {
        partner_details: {
          code: 'RS-XMLANSWER',
          name: 'XML answer',
          status: 'ACTIVE',
          profile_details: { profile_type: 'ISO', iso_details: { iso_symbol: 'XA-1' } },
        },
      },
    });

    expect(xml).toMatch(/^<\?xml[^>]*>\s*<partner[\s>]/);
    expect(xml).toContain('<code>RS-XMLANSWER</code>');
  });

  it('walks a list in XML: each item as XML text, until total_record_count', async () => {
    const partners: unknown[] = [];
    for await (const partner of env.client.paginate('GET /partners', {
      accept: 'xml',
      query: { limit: 2 },
    })) {
      partners.push(partner);
    }
    const json = await env.request('GET /partners', { query: { limit: 100 } });

    expect(partners).toHaveLength(Number(total(json)));
    expect(partners.every((item) => typeof item === 'string' && /^<partner[\s>]/.test(item))).toBe(
      true,
    );
  });

  it('refuses both vat fields on one object of an XML body before the network (60252)', async () => {
    const attempt = env.client.request('POST /acq/invoices', {
      format: 'xml',
      body: '<invoice><vat_info><percentage>7</percentage><amount>3</amount></vat_info></invoice>',
    });

    await expect(attempt).rejects.toBeInstanceOf(SvcParamError);
  });

  // An invoice-level percentage and a line's amount are different objects (spec §4.11, 60252).
  it('lets an XML invoice with an invoice-level percentage and a line amount reach the platform', async () => {
    const created = obj(
      await env.request('POST /acq/invoices', {
        format: 'xml',
        accept: 'json',
        body: INVOICE_XML_LEVELS,
      }),
    );

    expect(created.number).toBe('GOBI-XML-VAT');
  });

  // spec §1.2: every request body may be XML.
  it('creates a partner from an XML body and reads the answer as JSON', async () => {
    const created = obj(
      await env.request('POST /partners', {
        format: 'xml',
        accept: 'json',
        body:
          '<partner><partner_details><code>RS-XMLBODY</code><name>XML body</name>' +
          '<status>ACTIVE</status><profile_details><profile_type>ISO</profile_type>' +
          '<iso_details><iso_symbol>XB-1</iso_symbol></iso_details></profile_details>' +
          '</partner_details></partner>',
      }),
    );

    expect(obj(created.partner_details).code).toBe('RS-XMLBODY');
  });
});
