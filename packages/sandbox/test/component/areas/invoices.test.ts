import { invoicesArea } from '../../../src/areas/invoices';
import { useAreaServer } from './area-server';

const invoice = (overrides: Record<string, unknown> = {}) => ({
  number: 'T-1',
  invoice_date: '2025-03-01',
  vendor: { value: 'EBSCO' },
  total_amount: 120.5,
  currency: { value: 'USD' },
  ...overrides,
});

type Invoice = {
  id: string;
  number: string;
  invoice_status: { value: string };
  invoice_workflow_status: { value: string };
};

describe('invoices area (spec §4.11)', () => {
  const call = useAreaServer(invoicesArea);
  const create = async (overrides: Record<string, unknown> = {}) =>
    (await call('POST', '/acq/invoices', { body: invoice(overrides) })).json as Invoice;
  const invoices = async (query: string) =>
    ((await call('GET', `/acq/invoices/?limit=100&${query}`)).json.invoice ?? []) as Invoice[];

  it('creates an invoice, reads it with lines, brief without lines, and lists it by q', async () => {
    const created = await create({ number: 'RT-1', vat_info: { percentage: 7 } });
    expect(created).toMatchObject({
      invoice_status: { value: 'ACTIVE' },
      invoice_workflow_status: { value: 'InReview' },
    });
    const read = await call('GET', `/acq/invoices/${created.id}`);
    expect(read.json.invoice_line).toEqual([]);
    expect(read.json.vat_info).toEqual({ percentage: 7 });
    expect(
      (await call('GET', `/acq/invoices/${created.id}?view=brief`)).json.invoice_line,
    ).toBeUndefined();
    expect((await invoices('q=invoice_number=RT-1')).map((i) => i.id)).toEqual([created.id]);
    expect((await invoices('q=vendor_name~ebsco')).map((i) => i.id)).toContain(created.id);
  });

  it('lists with base_status and workflow filters, also without the trailing slash', async () => {
    const closed = await invoices('base_status=CLOSED');
    expect(closed.every((i) => i.invoice_status.value === 'CLOSED')).toBe(true);
    const all = await call('GET', '/acq/invoices?limit=100');
    expect(Number(all.json.total_record_count)).toBeGreaterThanOrEqual(8);
    const review = await invoices('invoice_workflow_status=InReview');
    expect(review.every((i) => i.invoice_workflow_status.value === 'InReview')).toBe(true);
  });

  it('searches the PO line fields of the lines', async () => {
    const [first] = await invoices('');
    const lines = (await call('GET', `/acq/invoices/${first?.id ?? ''}`)).json.invoice_line as {
      po_line: { value: string };
    }[];
    const pol = lines[0]?.po_line.value ?? '';
    expect((await invoices(`q=pol_number=${pol}`)).map((i) => i.id)).toContain(first?.id);
  });

  it.each([
    ['401873', 'q=amount~1'],
    ['401873', 'q=all~x AND vendor_code~y'],
    ['402119', 'base_status=OPEN'],
    ['402119', 'view=tiny'],
    ['402119', 'expand=lines'],
  ])('refuses the list with %s for %s', async (errorCode, query) => {
    expect((await call('GET', `/acq/invoices?${query}`)).errorCode).toBe(errorCode);
  });

  it('answers 412400 for an unknown invoice and 60100 for a malformed id', async () => {
    expect((await call('GET', '/acq/invoices/12345')).errorCode).toBe('412400');
    expect((await call('GET', '/acq/invoices/abc')).errorCode).toBe('60100');
    expect((await call('GET', '/acq/invoices/0')).errorCode).toBe('60100');
  });

  it.each([
    ['4028805', { vendor: undefined }],
    ['60242', { vendor: 'CITYBINDERY' }],
    ['60233', { number: '' }],
    ['60234', { invoice_date: undefined }],
    ['402119', { invoice_date: '01/03/2025' }],
    ['60235', { total_amount: undefined }],
    ['60236', { currency: 'XYZ' }],
    ['60243', { currency: 'JPY' }],
    ['60237', { vendor_account: 'GOBI-FIRM' }],
    ['60238', { payment_method: 'BARTER' }],
    ['60239', { invoice_workflow_status: 'Lost' }],
    ['60240', { payment: { prepaid: 'maybe' } }],
    ['60241', { explicit_ratio: [{ currency: 'EUR', rate: -1 }] }],
    [
      '60244',
      {
        explicit_ratio: [
          { currency: 'EUR', rate: 1.1 },
          { currency: 'EUR', rate: 1.2 },
        ],
      },
    ],
    ['60245', { payment: { payment_status: 'MAYBE' } }],
    ['60246', { owner: 'MARS' }],
    ['60252', { vat_info: { percentage: 7, amount: 8.4 } }],
    ['60253', { vat_code: 'ZERO' }],
  ])('refuses an invoice create with %s', async (errorCode, overrides) => {
    const reply = await call('POST', '/acq/invoices', {
      body: invoice({ number: `E-${errorCode}`, ...overrides }),
    });
    expect(reply.errorCode).toBe(errorCode);
  });

  it.each([
    ['both zero', { percentage: 0, amount: 0 }, undefined],
    ['both empty or null', { percentage: '', amount: null }, undefined],
    ['a percentage with a zero amount', { percentage: 7, amount: 0 }, { percentage: 7 }],
    ['an amount with a zero percentage', { percentage: '0.0', amount: 3 }, { amount: 3 }],
  ])('accepts a vat given as %s: 0, "" and null count as not given', async (_case, vat, kept) => {
    const reply = await call('POST', '/acq/invoices', {
      body: invoice({ number: `VAT-${JSON.stringify(vat)}`, vat_info: vat }),
    });
    expect([reply.status, reply.json.vat_info]).toEqual([200, kept]);
  });

  it('refuses a second invoice number of the same vendor with 60288 and a non-object with 60256', async () => {
    await create({ number: 'DUP-1' });
    expect(
      (await call('POST', '/acq/invoices', { body: invoice({ number: 'DUP-1' }) })).errorCode,
    ).toBe('60288');
    expect((await call('POST', '/acq/invoices', { body: [1] })).errorCode).toBe('60256');
  });

  it('updates an active invoice; refuses id mismatch (60285), workflow change (60290), VAT both (60252)', async () => {
    const { id } = await create({ number: 'UP-1' });
    expect(
      (await call('PUT', `/acq/invoices/${id}`, { body: { total_amount: 99 } })).json.total_amount,
    ).toBe(99);
    expect((await call('PUT', `/acq/invoices/${id}`, { body: { id: '1' } })).errorCode).toBe(
      '60285',
    );
    const workflow = await call('PUT', `/acq/invoices/${id}`, {
      body: { invoice_workflow_status: 'Closed' },
    });
    expect(workflow.errorCode).toBe('60290');
    const vat = await call('PUT', `/acq/invoices/${id}`, {
      body: { vat_info: { percentage: 1, amount: 2 } },
    });
    expect(vat.errorCode).toBe('60252');
  });

  it('processes, marks in ERP and pays an invoice, then refuses updates with 60291', async () => {
    const { id } = await create({ number: 'OP-1' });
    const line = await call('POST', `/acq/invoices/${id}/lines`, {
      body: {
        po_line: 'POL-1002',
        price: 10,
        fund_distribution: [{ fund_code: 'SERIALS', percent: 100 }],
      },
    });
    const lineId = String(line.json.id);
    expect((await call('POST', `/acq/invoices/${id}?op=mark_in_erp`)).errorCode).toBe('60267');
    const processed = await call('POST', `/acq/invoices/${id}?op=process_invoice`, { body: {} });
    expect(processed.json.invoice_workflow_status).toMatchObject({ value: 'Waiting_For_Payment' });
    expect(
      (await call('POST', `/acq/invoices/${id}?op=mark_in_erp`)).json.invoice_workflow_status,
    ).toMatchObject({
      value: 'Ready_to_be_Paid',
    });
    const paid = await call('POST', `/acq/invoices/${id}?op=paid`);
    expect(paid.json).toMatchObject({
      invoice_status: { value: 'CLOSED' },
      payment: { payment_status: { value: 'PAID' } },
    });
    expect(
      (await call('PUT', `/acq/invoices/${id}`, { body: { total_amount: 1 } })).errorCode,
    ).toBe('60291');
    expect(
      (await call('PUT', `/acq/invoices/${id}/lines/${lineId}`, { body: { price: 1 } })).errorCode,
    ).toBe('60286');
    expect((await call('POST', `/acq/invoices/${id}/lines`, { body: {} })).errorCode).toBe('60285');
    expect((await call('POST', `/acq/invoices/${id}?op=paid`)).errorCode).toBe('60260');
  });

  it('rejects only with a note (60268); unknown op is 40166410, unknown invoice 412400', async () => {
    const { id } = await create({ number: 'REJ-1' });
    expect((await call('POST', `/acq/invoices/${id}?op=rejected`, { body: {} })).errorCode).toBe(
      '60268',
    );
    const rejected = await call('POST', `/acq/invoices/${id}?op=rejected`, {
      body: { note: 'Wrong prices' },
    });
    expect(rejected.json).toMatchObject({
      invoice_workflow_status: { value: 'Rejected' },
      note: 'Wrong prices',
    });
    expect((await call('POST', `/acq/invoices/${id}?op=approve`)).errorCode).toBe('40166410');
    expect((await call('POST', '/acq/invoices/999?op=paid')).errorCode).toBe('412400');
  });

  it('creates, lists, reads and updates lines with their codes', async () => {
    const { id } = await create({ number: 'LN-1' });
    const path = `/acq/invoices/${id}/lines`;
    const first = await call('POST', path, {
      body: { type: 'REGULAR', po_line: 'POL-1005', vat_info: { amount: 2 } },
    });
    expect(first.json).toMatchObject({ number: '1', po_line: { value: 'POL-1005' } });
    const lineId = String(first.json.id);
    expect((await call('POST', path, { body: { number: '1' } })).errorCode).toBe('60306');
    expect((await call('POST', path, { body: { number: 'x' } })).errorCode).toBe('60306');
    expect((await call('GET', `${path}?q=invoice_line_number=1`)).json.total_record_count).toBe(1);
    expect((await call('GET', `${path}?q=po_line=1`)).errorCode).toBe('401873');
    expect((await call('GET', `${path}/${lineId}`)).json.id).toBe(lineId);
    expect((await call('GET', `${path}/1`)).errorCode).toBe('402119');
    const put = await call('PUT', `${path}/${lineId}`, { body: { reporting_code: 'BOOKS' } });
    expect(put.json.reporting_code).toMatchObject({ value: 'BOOKS' });
    expect((await call('PUT', `${path}/1`, { body: {} })).errorCode).toBe('60287');
    expect((await call('PUT', `${path}/${lineId}`, { body: { id: '2' } })).errorCode).toBe('60284');
    expect((await call('GET', '/acq/invoices/abc/lines')).errorCode).toBe('60100');
    expect((await call('GET', '/acq/invoices/999/lines')).errorCode).toBe('412400');
  });

  it.each([
    ['60247', { type: 'GIFT' }],
    ['60248', { po_line: 'POL-9999' }],
    ['60249', { subscription_from_date: '2025-01-01' }],
    ['60251', { reporting_code: 'TOYS' }],
    ['60252', { vat_info: { percentage: 1, amount: 1 } }],
    ['60253', { vat_code: 'NONE' }],
    ['60254', { fund_distribution: [{ fund_code: 'NOPE', percent: 100 }] }],
    ['60257', { fund_distribution: [{ fund_code: 'EBOOKS' }] }],
    ['60255', [1]],
  ])('refuses a line create with %s', async (errorCode, body) => {
    const { id } = await create({ number: `LE-${errorCode}` });
    expect((await call('POST', `/acq/invoices/${id}/lines`, { body })).errorCode).toBe(errorCode);
  });

  it('adds, lists and reads attachments; 60321, 60322 (60346 is for updates only), 60100, 402401', async () => {
    const { id } = await create({ number: 'AT-1' });
    const path = `/acq/invoices/${id}/attachments`;
    const created = await call('POST', path, {
      body: { file_name: 'scan.pdf', content: 'JVBERi0xLjQ=' },
    });
    const attachmentId = String(created.json.id);
    expect(created.json).toMatchObject({ file_name: 'scan.pdf', size: 8 });
    expect((await call('GET', path)).json.total_record_count).toBe(1);
    expect((await call('GET', `${path}/${attachmentId}`)).json.content).toBe('JVBERi0xLjQ=');
    expect((await call('GET', `${path}/${attachmentId}?expand=none`)).json.content).toBeUndefined();
    const expanded = await call('GET', `/acq/invoices/${id}?expand=attachments`);
    expect((expanded.json.attachment as { file_name: string }[])[0]?.file_name).toBe('scan.pdf');
    expect((await call('GET', `${path}/12345`)).errorCode).toBe('60321');
    expect((await call('GET', `${path}/x1`)).errorCode).toBe('60100');
    expect((await call('POST', path, { body: { file_name: 'a', content: '***' } })).errorCode).toBe(
      '60322',
    );
    expect((await call('POST', path, { body: { content: 'AAAA' } })).errorCode).toBe('60322');
    expect((await call('POST', '/acq/invoices/999/attachments', { body: {} })).errorCode).toBe(
      '402401',
    );
    expect((await call('GET', '/acq/invoices/999/attachments')).errorCode).toBe('412400');
  });

  it('answers XML when asked', async () => {
    const { id } = await create({ number: 'XML-1' });
    const reply = await call('GET', `/acq/invoices/${id}`, { accept: 'application/xml' });
    expect(reply.text).toContain('<invoice link=');
    expect(reply.text).toContain('<vendor desc="EBSCO Information Services">EBSCO</vendor>');
  });
});
