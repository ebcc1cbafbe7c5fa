import { SvcParamError } from '@svcws/client';
import {
  apiError,
  clientAgainstSandbox,
  expectRefusal,
  isoDay,
  items,
  obj,
  routesOf,
  total,
  valueOf,
} from './client-vs-sandbox';
import type { ClientAgainstSandbox } from './client-vs-sandbox';

const PDF = Buffer.from('%PDF-1.4 sandbox attachment').toString('base64');

/** spec §4.9–§4.13 through the real client against the real sandbox. */
describe('client against sandbox: acquisitions (spec §4.9–§4.13)', () => {
  let env: ClientAgainstSandbox;
  beforeAll(async () => {
    env = await clientAgainstSandbox();
  });
  afterAll(async () => {
    await env.close();
  });

  describe('§4.9 currencies and fiscal periods', () => {
    it('lists all currencies and the subset', async () => {
      expect(total(await env.request('GET /acq/currencies'))).toBe(7);
      const subset = await env.request('GET /acq/currencies', { query: { mode: 'Subset' } });
      expect(items(subset, 'currency').map((c) => valueOf(c.currency))).toEqual([
        'USD',
        'EUR',
        'GBP',
      ]);
    });

    it('gives one exchange rate in Ratio mode; a day without a rate is 60348', async () => {
      const yesterday = isoDay(-1).replace(/-/g, '');
      const rate = obj(
        await env.request('GET /acq/currencies', {
          query: {
            mode: 'Ratio',
            source_currency: 'EUR',
            target_currency: 'USD',
            exchange_date: yesterday,
          },
        }),
      );
      expect(typeof rate.ratio).toBe('number');
      expect(Number(rate.ratio)).toBeGreaterThan(0.9);
      await expectRefusal(
        env.request('GET /acq/currencies', { query: { mode: 'Ratio', exchange_date: '20100104' } }),
        '60348',
        'exchange rate cannot be determined',
      );
    });

    it('lists the fiscal periods, one of them current', async () => {
      expect(total(await env.request('GET /acq/fiscal-periods'))).toBe(4);
      const current = await env.request('GET /acq/fiscal-periods', { query: { mode: 'Current' } });
      expect(items(current, 'fiscal_period').map((p) => p.current)).toEqual([true]);
    });
  });

  describe('§4.10 funds', () => {
    const currentPeriod = async (): Promise<string> =>
      String(
        items(
          await env.request('GET /acq/fiscal-periods', { query: { mode: 'Current' } }),
          'fiscal_period',
        )[0]?.id,
      );
    const fundsAll = async () =>
      items(await env.request('GET /acq/funds', { query: { mode: 'ALL', limit: 100 } }), 'fund');

    it('lists POL funds (allocated, active, current) and all funds and ledgers with mode=ALL', async () => {
      const period = await currentPeriod();
      const pol = items(await env.request('GET /acq/funds', { query: { limit: 100 } }), 'fund');
      expect(pol.length).toBeGreaterThan(0);
      expect(
        pol.every(
          (fund) =>
            valueOf(fund.type) === 'ALLOCATED' &&
            valueOf(fund.status) === 'ACTIVE' &&
            valueOf(fund.fiscal_period) === period,
        ),
      ).toBe(true);
      expect(await fundsAll()).toHaveLength(18);
    });

    it('with mode=POL a status filter narrows the list (spec §4.10 defines it; POL refuses only other q fields)', async () => {
      const polWith = async (status: 'ACTIVE' | 'INACTIVE') =>
        items(await env.request('GET /acq/funds', { query: { status, limit: 100 } }), 'fund');
      const pol = items(await env.request('GET /acq/funds', { query: { limit: 100 } }), 'fund');
      expect(pol.length).toBeGreaterThan(0);
      expect(await polWith('ACTIVE')).toEqual(pol);
      expect(await polWith('INACTIVE')).toEqual([]);
      await expect(
        env.request('GET /acq/funds', { query: { q: 'name~HUM' } }),
      ).rejects.toBeInstanceOf(SvcParamError);
    });

    it('creates, reads (brief), updates, deactivates and deletes a fund (204)', async () => {
      const period = await currentPeriod();
      const summary = (await fundsAll()).find(
        (fund) => fund.code === 'HUMANITIES' && valueOf(fund.fiscal_period) === period,
      );
      const created = obj(
        await env.request('POST /acq/funds', {
          query: { rules_level: 'fund' },
          body: {
            code: 'ART-BOOKS',
            name: 'Art books',
            type: 'ALLOCATED',
            parent_fund: summary?.id,
          },
        }),
      );
      const fundId = String(created.id);
      const brief = obj(
        await env.request('GET /acq/funds/{fund_id}', {
          path: { fund_id: fundId },
          query: { view: 'brief' },
        }),
      );
      expect(Object.keys(brief).sort()).toEqual([
        'code',
        'fiscal_period',
        'id',
        'name',
        'status',
        'type',
      ]);
      const updated = obj(
        await env.request('PUT /acq/funds/{fund_id}', {
          path: { fund_id: fundId },
          body: { name: 'Art and design books' },
        }),
      );
      expect(updated.name).toBe('Art and design books');
      const inactive = obj(
        await env.request('POST /acq/funds/{fund_id}', {
          path: { fund_id: fundId },
          query: { op: 'deactivate' },
        }),
      );
      expect(valueOf(inactive.status)).toBe('INACTIVE');
      await expect(
        env.request('DELETE /acq/funds/{fund_id}', { path: { fund_id: fundId } }),
      ).resolves.toBeUndefined();
      await expectRefusal(
        env.request('PUT /acq/funds/{fund_id}', { path: { fund_id: fundId }, body: { name: 'x' } }),
        '40166410',
        'parameter invalid',
      );
    });

    it('refuses a fund without a name with 40166404 and the deletion of a ledger with 410873', async () => {
      await expectRefusal(
        env.request('POST /acq/funds', { body: { code: 'NONAME', type: 'LEDGER' } }),
        '40166404',
        'invalid field',
      );
      const ledger = (await fundsAll()).find((fund) => valueOf(fund.type) === 'LEDGER');
      await expectRefusal(
        env.request('DELETE /acq/funds/{fund_id}', { path: { fund_id: String(ledger?.id) } }),
        '410873',
        'request failed',
      );
    });

    it('lists a fund transactions by kind; an unknown fund is 401873', async () => {
      const allocated = (await fundsAll()).find((fund) => valueOf(fund.type) === 'ALLOCATED');
      const fundId = String(allocated?.id);
      const all = await env.request('GET /acq/funds/{fund_id}/transactions', {
        path: { fund_id: fundId },
      });
      expect(Number(total(all))).toBeGreaterThanOrEqual(3);
      const allocations = await env.request('GET /acq/funds/{fund_id}/transactions', {
        path: { fund_id: fundId },
        query: { filter: 'ALLOCATION' },
      });
      expect(items(allocations, 'transaction').map((t) => valueOf(t.transaction_type))).toEqual([
        'ALLOCATION',
      ]);
      await expectRefusal(
        env.request('GET /acq/funds/{fund_id}/transactions', { path: { fund_id: '1' } }),
        '401873',
        'fund id not valid',
      );
    });

    it('q=all~ in the default POL mode searches fund_code on both sides; another field is refused by the client before the network and by the sandbox with 401873', async () => {
      // spec §4.10: "When mode=POL only fund_code is searched" describes the search.
      const byAll = await env.request('GET /acq/funds', { query: { q: 'all~BOOKS' } });
      expect(items(byAll, 'fund').map((fund) => fund.code)).toEqual(['BOOKS-GEN']);
      await expect(
        env.client.request('GET /acq/funds', { query: { q: 'name~books' } }),
      ).rejects.toBeInstanceOf(SvcParamError);
      const raw = await env.sut.api('GET', '/acq/funds?q=name~books');
      expect([raw.status, raw.errorCode]).toEqual([400, '401873']);
    });

    it('the read of an unknown fund is a 404: spec §4.10 lists no 400 code for it, §7.7 leaves unknown paths open', async () => {
      const error = await apiError(
        env.request('GET /acq/funds/{fund_id}', { path: { fund_id: '1' } }),
      );
      expect([error.status, error.code, error.meaning]).toEqual([404, 'NOT_FOUND', undefined]);
    });
  });

  describe('§4.11 invoices, lines, attachments', () => {
    const newInvoice = async (number: string): Promise<string> => {
      const created = obj(
        await env.request('POST /acq/invoices', {
          body: {
            vendor: 'GOBI',
            number,
            invoice_date: isoDay(-3),
            total_amount: 250,
            currency: 'USD',
          },
        }),
      );
      return String(created.id);
    };

    it('creates an invoice; a vendor that is not a material supplier is 60242', async () => {
      const id = await newInvoice('GOBI-90001');
      expect(id).toMatch(/^\d+$/);
      await expectRefusal(
        env.request('POST /acq/invoices', {
          body: {
            vendor: 'CITYBINDERY',
            number: 'B-1',
            invoice_date: isoDay(-1),
            total_amount: 10,
          },
        }),
        '60242',
        'vendor is not a material supplier',
      );
    });

    it('the client refuses both a vat percentage and a vat amount before the network (60252)', async () => {
      const error = await env.client
        .request('POST /acq/invoices', {
          body: {
            vendor: 'GOBI',
            number: 'GOBI-VAT',
            invoice_date: isoDay(-1),
            total_amount: 10,
            vat_info: { percentage: 7, amount: 3 },
          },
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SvcParamError);
    });

    it('a zero vat percentage with a zero amount counts as no vat on both sides', async () => {
      // The platform writes 0.0 for both when no vat is set; 0, "" and null mean "not given".
      const created = obj(
        await env.request('POST /acq/invoices', {
          body: {
            vendor: 'GOBI',
            number: 'GOBI-VAT0',
            invoice_date: isoDay(-1),
            total_amount: 10,
            vat_info: { percentage: 0, amount: 0 },
          },
        }),
      );
      expect(created.vat_info).toBeUndefined();
    });

    it('the sandbox refuses a vat percentage with a non-zero amount with 60252', async () => {
      const raw = await env.sut.api('POST', '/acq/invoices', {
        body: JSON.stringify({
          vendor: 'GOBI',
          number: 'GOBI-VAT2',
          invoice_date: isoDay(-1),
          total_amount: 10,
          vat_info: { percentage: 7, amount: 3 },
        }),
        headers: { 'content-type': 'application/json' },
      });
      expect([raw.status, raw.errorCode]).toEqual([400, '60252']);
    });

    it('q=all (the spec default) lists every invoice, as no q does', async () => {
      // spec §4.11: "q (default all)".
      const plain = await env.request('GET /acq/invoices/', { query: { limit: 100 } });
      const all = await env.request('GET /acq/invoices/', { query: { q: 'all', limit: 100 } });
      expect(total(all)).toBe(total(plain));
    });

    it('lists invoices with the spec path (trailing slash), by base status', async () => {
      const all = await env.request('GET /acq/invoices/', { query: { limit: 100 } });
      const closed = await env.request('GET /acq/invoices/', {
        query: { base_status: 'CLOSED', limit: 100 },
      });
      expect(Number(total(all))).toBeGreaterThanOrEqual(8);
      expect(
        items(closed, 'invoice').every((invoice) => valueOf(invoice.invoice_status) === 'CLOSED'),
      ).toBe(true);
    });

    it('reads an invoice with lines, brief without; an id that is not a number is 60100, an unknown one 412400', async () => {
      const first = items(await env.request('GET /acq/invoices/'), 'invoice')[0];
      const id = String(first?.id);
      const full = obj(
        await env.request('GET /acq/invoices/{invoice_id}', { path: { invoice_id: id } }),
      );
      expect(items(full, 'invoice_line').length).toBeGreaterThan(0);
      const brief = obj(
        await env.request('GET /acq/invoices/{invoice_id}', {
          path: { invoice_id: id },
          query: { view: 'brief' },
        }),
      );
      expect(brief.invoice_line).toBeUndefined();
      await expectRefusal(
        env.request('GET /acq/invoices/{invoice_id}', { path: { invoice_id: 'abc' } }),
        '60100',
        'parameter must be a number above zero',
      );
      await expectRefusal(
        env.request('GET /acq/invoices/{invoice_id}', { path: { invoice_id: '7' } }),
        '412400',
        'invoice not found',
      );
    });

    it('updates an invoice, runs process_invoice, and refuses a change of workflow status with 60290', async () => {
      const id = await newInvoice('GOBI-90002');
      const updated = obj(
        await env.request('PUT /acq/invoices/{invoice_id}', {
          path: { invoice_id: id },
          body: { total_amount: 300 },
        }),
      );
      expect(updated.total_amount).toBe(300);
      const processed = obj(
        await env.request('POST /acq/invoices/{invoice_id}', {
          path: { invoice_id: id },
          query: { op: 'process_invoice' },
          body: { id },
        }),
      );
      expect(valueOf(processed.invoice_workflow_status)).toBe('Waiting_For_Payment');
      await expectRefusal(
        env.request('PUT /acq/invoices/{invoice_id}', {
          path: { invoice_id: id },
          body: { invoice_workflow_status: 'Closed' },
        }),
        '60290',
        'task status not valid',
      );
    });

    it('refuses to reject an invoice without a note with 60268', async () => {
      const id = await newInvoice('GOBI-90003');
      await expectRefusal(
        env.request('POST /acq/invoices/{invoice_id}', {
          path: { invoice_id: id },
          query: { op: 'rejected' },
          body: { id },
        }),
        '60268',
        'invoice note mandatory',
      );
    });

    it('creates, lists, reads and updates invoice lines; an unknown fund code is 60254', async () => {
      const id = await newInvoice('GOBI-90004');
      const line = obj(
        await env.request('POST /acq/invoices/{invoice_id}/lines', {
          path: { invoice_id: id },
          body: {
            type: 'REGULAR',
            po_line: 'POL-1004',
            price: 120,
            quantity: 1,
            fund_distribution: [{ fund_code: 'BOOKS-GEN', percent: 100 }],
          },
        }),
      );
      const lineId = String(line.id);
      const listed = await env.request('GET /acq/invoices/{invoice_id}/lines', {
        path: { invoice_id: id },
        query: { q: 'invoice_line_number=1' },
      });
      expect(items(listed, 'invoice_line').map((l) => l.id)).toEqual([lineId]);
      const read = obj(
        await env.request('GET /acq/invoices/{invoice_id}/lines/{invoice_line_id}', {
          path: { invoice_id: id, invoice_line_id: lineId },
        }),
      );
      expect(valueOf(read.po_line)).toBe('POL-1004');
      const updated = obj(
        await env.request('PUT /acq/invoices/{invoice_id}/lines/{invoice_line_id}', {
          path: { invoice_id: id, invoice_line_id: lineId },
          body: { price: 130 },
        }),
      );
      expect(updated.price).toBe(130);
      await expectRefusal(
        env.request('POST /acq/invoices/{invoice_id}/lines', {
          path: { invoice_id: id },
          body: { fund_distribution: [{ fund_code: 'NO-SUCH-FUND', percent: 100 }] },
        }),
        '60254',
        'fund code not valid',
      );
    });

    it('attaches a file to an invoice, lists and reads it; an unknown attachment is 60321', async () => {
      const id = await newInvoice('GOBI-90005');
      const created = obj(
        await env.request('POST /acq/invoices/{invoice_id}/attachments', {
          path: { invoice_id: id },
          body: { file_name: 'invoice.pdf', content: PDF, type: 'application/pdf' },
        }),
      );
      const listed = await env.request('GET /acq/invoices/{invoice_id}/attachments', {
        path: { invoice_id: id },
      });
      expect(items(listed, 'attachment').map((a) => a.file_name)).toEqual(['invoice.pdf']);
      const read = obj(
        await env.request('GET /acq/invoices/{invoice_id}/attachments/{attachment_id}', {
          path: { invoice_id: id, attachment_id: String(created.id) },
          query: { expand: 'content' },
        }),
      );
      expect(read.content).toBe(PDF);
      await expectRefusal(
        env.request('GET /acq/invoices/{invoice_id}/attachments/{attachment_id}', {
          path: { invoice_id: id, attachment_id: '42' },
        }),
        '60321',
        'attachment not found',
      );
    });
  });

  describe('§4.12 licenses, attachments, amendments', () => {
    it('lists licenses: type LICENSE and no deleted ones by default', async () => {
      const listed = await env.request('GET /acq/licenses/');
      expect(
        items(listed, 'license')
          .map((l) => l.code)
          .sort(),
      ).toEqual(['LIC-JSTOR', 'LIC-NATURE', 'LIC-OED', 'LIC-PQ-DRAFT']);
      const deleted = await env.request('GET /acq/licenses/', { query: { status: 'DELETED' } });
      expect(items(deleted, 'license').map((l) => l.code)).toEqual(['LIC-OLD']);
    });

    it('q=all (the spec default) lists every license, as no q does', async () => {
      // spec §4.12: "q (default all; searches name, code, licensor)".
      const all = await env.client.call('listLicenses', { query: { q: 'all' } });
      expect(total(all)).toBe(4);
    });

    it('creates a license; an end date before the start date is 60201, an unknown administrator 60220', async () => {
      const created = obj(
        await env.request('POST /acq/licenses', {
          body: {
            code: 'LIC-ARXIV',
            name: 'arXiv mirror',
            licensor: 'EBSCO',
            start_date: '2025-01-01',
            end_date: '2027-12-31',
          },
        }),
      );
      expect([valueOf(created.type), valueOf(created.status)]).toEqual(['LICENSE', 'ACTIVE']);
      await expectRefusal(
        env.request('POST /acq/licenses', {
          body: { code: 'LIC-BAD', name: 'Bad', start_date: '2025-01-01', end_date: '2024-01-01' },
        }),
        '60201',
        'end date before start date',
      );
      await expectRefusal(
        env.request('POST /acq/licenses', {
          body: { code: 'LIC-BAD', name: 'Bad', administrator: 'nobody' },
        }),
        '60220',
        'administrator not valid',
      );
    });

    it('reads a license with its blank terms; an unknown one is 403400', async () => {
      const license = obj(
        await env.request('GET /acq/licenses/{license_code}', {
          path: { license_code: 'LIC-NATURE' },
          query: { include_blank_terms: true },
        }),
      );
      expect(items(license, 'term')).toHaveLength(6);
      await expectRefusal(
        env.request('GET /acq/licenses/{license_code}', { path: { license_code: 'LIC-NONE' } }),
        '403400',
        'not found',
      );
    });

    it('updates a license and deletes it (204): it is then listed as DELETED, a second delete is 60200', async () => {
      await env.request('POST /acq/licenses', { body: { code: 'LIC-TMP', name: 'Temporary' } });
      const updated = obj(
        await env.request('PUT /acq/licenses/{license_code}', {
          path: { license_code: 'LIC-TMP' },
          body: { name: 'Temporary license', review_status: 'ACCEPTED' },
        }),
      );
      expect([updated.name, valueOf(updated.review_status)]).toEqual([
        'Temporary license',
        'ACCEPTED',
      ]);
      await expect(
        env.request('DELETE /acq/licenses/{license_code}', { path: { license_code: 'LIC-TMP' } }),
      ).resolves.toBeUndefined();
      const deleted = await env.request('GET /acq/licenses/', { query: { status: 'DELETED' } });
      expect(items(deleted, 'license').map((l) => l.code)).toContain('LIC-TMP');
      await expectRefusal(
        env.request('DELETE /acq/licenses/{license_code}', { path: { license_code: 'LIC-TMP' } }),
        '60200',
        'could not be deleted',
      );
    });

    it('attaches, lists, reads, updates and deletes a license attachment (204); content over the limit is 60345', async () => {
      const created = obj(
        await env.request('POST /acq/licenses/{license_code}/attachments', {
          path: { license_code: 'LIC-JSTOR' },
          body: { file_name: 'jstor.pdf', content: PDF },
        }),
      );
      const attachmentId = String(created.id);
      const path = { license_code: 'LIC-JSTOR', attachment_id: attachmentId };
      const listed = await env.request('GET /acq/licenses/{license_code}/attachments', {
        path: { license_code: 'LIC-JSTOR' },
      });
      expect(items(listed, 'attachment').map((a) => a.id)).toEqual([attachmentId]);
      const read = obj(
        await env.request('GET /acq/licenses/{license_code}/attachments/{attachment_id}', { path }),
      );
      expect(read.file_name).toBe('jstor.pdf');
      const updated = obj(
        await env.request('PUT /acq/licenses/{license_code}/attachments/{attachment_id}', {
          path,
          body: { note: 'signed copy' },
        }),
      );
      expect(updated.note).toBe('signed copy');
      await expectRefusal(
        env.request('PUT /acq/licenses/{license_code}/attachments/{attachment_id}', {
          path,
          body: { content: Buffer.alloc(1024 * 1024 + 1).toString('base64') },
        }),
        '60345',
        'content exceeds the allowed size',
      );
      await expect(
        env.request('DELETE /acq/licenses/{license_code}/attachments/{attachment_id}', { path }),
      ).resolves.toBeUndefined();
      await expectRefusal(
        env.request('GET /acq/licenses/{license_code}/attachments/{attachment_id}', { path }),
        '60321',
        'attachment not found',
      );
    });

    it('creates, lists, reads, updates and deletes an amendment (204); an unknown one is 403400', async () => {
      const license = { license_code: 'LIC-OED' };
      const created = obj(
        await env.request('POST /acq/licenses/{license_code}/amendments', {
          path: license,
          body: { code: 'AMD-OED-1', name: 'Extra seats' },
        }),
      );
      expect(valueOf(created.type)).toBe('ADDENDUM');
      const listed = await env.request('GET /acq/licenses/{license_code}/amendments', {
        path: license,
      });
      expect(items(listed, 'license').map((a) => a.code)).toEqual(['AMD-OED-1']);
      const path = { ...license, amendment_code: 'AMD-OED-1' };
      const read = obj(
        await env.request('GET /acq/licenses/{license_code}/amendments/{amendment_code}', { path }),
      );
      expect(read.name).toBe('Extra seats');
      const updated = obj(
        await env.request('PUT /acq/licenses/{license_code}/amendments/{amendment_code}', {
          path,
          body: { name: 'Extra seats (25)' },
        }),
      );
      expect(updated.name).toBe('Extra seats (25)');
      await expect(
        env.request('DELETE /acq/licenses/{license_code}/amendments/{amendment_code}', { path }),
      ).resolves.toBeUndefined();
      await expectRefusal(
        env.request('GET /acq/licenses/{license_code}/amendments/{amendment_code}', { path }),
        '403400',
        'not found',
      );
    });
  });

  describe('§4.13 PO lines', () => {
    it('lists PO lines without CLOSED ones by default, every line with ALL_WITH_CLOSED', async () => {
      const open = await env.request('GET /acq/po-lines', { query: { limit: 100 } });
      const all = await env.request('GET /acq/po-lines', {
        query: { limit: 100, status: 'ALL_WITH_CLOSED' },
      });
      expect(total(all)).toBe(30);
      expect(items(open, 'po_line').some((line) => valueOf(line.status) === 'CLOSED')).toBe(false);
      expect(Number(total(open))).toBeLessThan(30);
    });

    it('searches by title and orders by number ascending', async () => {
      const found = await env.request('GET /acq/po-lines', {
        query: {
          q: 'title~nature',
          status: 'ALL_WITH_CLOSED',
          order_by: 'number',
          direction: 'asc',
        },
      });
      const numbers = items(found, 'po_line').map((line) => String(line.number));
      expect(numbers.length).toBeGreaterThan(0);
      expect(numbers).toEqual([...numbers].sort());
    });
  });

  it('called every operation of the acquisitions part', () => {
    const missing = routesOf('acq').filter((route) => !env.called.has(route));
    expect(missing).toEqual([]);
  });
});
