import type { RequestHandler } from 'express';
import { sendBody, sendList } from '../respond';
import type { SandboxArea } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code, objectBody, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import { createInvoiceBook, type InvoiceBook } from './invoice-book';
import { validInvoice } from './invoice-rules';
import { enumParam, textParam } from './query-rules';
import { matchesSearch, searchParam, type SearchTerm } from './search-query';
import { poLineSeed } from './seed-values';

const SEARCH_FIELDS = [
  'invoice_number',
  'vendor_code',
  'additional_pol_reference',
  'invoice_reference_number',
  'pol_number',
  'pol_title',
  'po_number',
  'vendor_name',
  'all',
];

/** An op's allowed workflow statuses, its target, and its refusal code (spec §3 leaves them open). */
const OPS: Readonly<Record<string, { from: readonly string[]; to: string; refused: string }>> = {
  process_invoice: {
    from: ['InReview', 'InApproval', 'Rejected'],
    to: 'Waiting_For_Payment',
    refused: '60260',
  },
  mark_in_erp: { from: ['Waiting_For_Payment'], to: 'Ready_to_be_Paid', refused: '60267' },
  paid: { from: ['Waiting_For_Payment', 'Ready_to_be_Paid'], to: 'Closed', refused: '60260' },
  rejected: {
    from: ['InReview', 'InApproval', 'Waiting_For_Payment'],
    to: 'Rejected',
    refused: '60260',
  },
};

type InvoiceHandler = RequestHandler<{ invoice_id: string }>;

/** Invoices with lines (invoice-lines.ts) and attachments (attachments.ts): spec §4.11. */
export const invoicesArea: SandboxArea = (router, ctx) => {
  const book = createInvoiceBook(router, ctx);
  router.get(['/acq/invoices', '/acq/invoices/'], listInvoices(book));
  router.post(['/acq/invoices', '/acq/invoices/'], createInvoice(book));
  router.get('/acq/invoices/:invoice_id', (req, res) => {
    sendBody(req, res, book.present(book.invoiceOf(req.params.invoice_id), req.query), {
      xmlRoot: 'invoice',
    });
  });
  router.put('/acq/invoices/:invoice_id', updateInvoice(book));
  router.post('/acq/invoices/:invoice_id', runInvoiceOp(book));
};

function listInvoices({ invoices, lines, owners, present }: InvoiceBook): RequestHandler {
  return (req, res) => {
    const terms = searchParam(req.query, SEARCH_FIELDS, '401873');
    // "Some combinations of search fields cannot be used together": all with anything else.
    if (terms.length > 1 && terms.some((term) => term.field === 'all')) {
      throw badRequest('401873', 'Search field all cannot be combined with other fields');
    }
    const base = enumParam(req.query, 'base_status', ['', 'ACTIVE', 'CLOSED'], '', '402119');
    const workflow = enumParam(
      req.query,
      'invoice_workflow_status',
      ['', ...codesOf('InvoiceStatus')],
      '',
      '402119',
    );
    const owner = enumParam(req.query, 'owner', ['', ...owners], '', '402119');
    const form = enumParam(
      req.query,
      'creation_form',
      ['', 'API', 'MANUALLY', 'EDI', 'ERP'],
      '',
      '402119',
    );
    const items = invoices
      .list()
      .filter(
        (invoice) =>
          (base === '' || textAt(invoice, 'invoice_status') === base) &&
          (workflow === '' || textAt(invoice, 'invoice_workflow_status') === workflow) &&
          (owner === '' || textAt(invoice, 'owner') === owner) &&
          (form === '' || textAt(invoice, 'creation_form') === form) &&
          matches(invoice, terms, lines.get(String(invoice.id)) ?? []),
      );
    sendList(
      req,
      res,
      items.map((invoice) => present(invoice, req.query)),
      { itemKey: 'invoice' },
    );
  };
}

function createInvoice({ invoices, lines, owners, nextId, present }: InvoiceBook): RequestHandler {
  return (req, res) => {
    const body = objectBody(req.body, '60256');
    const id = nextId();
    const invoice = validInvoice(body, invoices.list(), owners);
    invoices.put(id, {
      ...invoice,
      id,
      invoice_status: code('ACTIVE'),
      creation_form: code('API'),
    });
    lines.set(id, []);
    sendBody(req, res, present(invoices.get(id), req.query), { xmlRoot: 'invoice' });
  };
}

function updateInvoice({ invoices, owners, invoiceOf, present }: InvoiceBook): InvoiceHandler {
  return (req, res) => {
    // The update's row lacks 412400: an unknown invoice is "not updated" (60256).
    const current = invoiceOf(req.params.invoice_id, (key) =>
      badRequest('60256', `Invoice not updated: no invoice ${key}`),
    );
    const id = String(current.id);
    const body = objectBody(req.body, '60256');
    checkUpdate(current, body, id);
    const { invoice_line: _lines, attachment: _attachments, link: _link, ...fields } = body;
    const others = invoices.list().filter((invoice) => invoice.id !== id);
    const updated = validInvoice({ ...current, ...fields }, others, owners);
    invoices.put(id, { ...updated, id, invoice_status: current.invoice_status });
    sendBody(req, res, present(invoices.get(id), req.query), { xmlRoot: 'invoice' });
  };
}

/** What an update may not do: change the id, touch a closed invoice, move the workflow status. */
function checkUpdate(current: Body, body: Body, id: string): void {
  if (textAt(body, 'id') !== undefined && textAt(body, 'id') !== id) {
    throw badRequest(
      '60285',
      `Invoice not valid: body id ${String(textAt(body, 'id'))} is not ${id}`,
    );
  }
  if (textAt(current, 'invoice_status') === 'CLOSED') {
    throw badRequest('60291', `Update not allowed due to status: invoice ${id} is CLOSED`);
  }
  const workflow = textAt(body, 'invoice_workflow_status');
  if (workflow !== undefined && workflow !== textAt(current, 'invoice_workflow_status')) {
    throw badRequest('60290', 'Task status not valid: the workflow status changes through op only');
  }
}

function runInvoiceOp({ invoiceOf, present }: InvoiceBook): InvoiceHandler {
  return (req, res) => {
    const opName = textParam(req.query, 'op', '40166410') ?? '';
    const op = OPS[opName];
    if (op === undefined)
      throw badRequest('40166410', `Op not valid: ${opName} (${Object.keys(OPS).join(', ')})`);
    const invoice = invoiceOf(req.params.invoice_id);
    const status = textAt(invoice, 'invoice_workflow_status') ?? '';
    if (
      opName === 'rejected' &&
      textAt(objectBody(req.body ?? {}, '60260'), 'note') === undefined
    ) {
      throw badRequest('60268', 'Invoice note is mandatory to reject an invoice');
    }
    if (!op.from.includes(status)) {
      throw badRequest(op.refused, `Cannot ${opName} an invoice in status ${status}`);
    }
    invoice.invoice_workflow_status = code(op.to);
    if (opName === 'rejected') invoice.note = textAt(objectBody(req.body, '60260'), 'note');
    if (opName === 'paid') {
      invoice.invoice_status = code('CLOSED');
      invoice.payment = { ...(invoice.payment as Body), payment_status: code('PAID') };
    }
    sendBody(req, res, present(invoice, {}), { xmlRoot: 'invoice' });
  };
}

function matches(
  invoice: Body,
  terms: readonly SearchTerm[],
  invoiceLines: readonly Body[],
): boolean {
  return matchesSearch(invoice, terms, SEARCH_FIELDS, (item, field) => {
    const polNumbers = invoiceLines.map((line) => textAt(line, 'po_line') ?? '');
    switch (field) {
      case 'invoice_number':
        return [textAt(item, 'number')];
      case 'vendor_code':
        return [textAt(item, 'vendor')];
      case 'vendor_name':
        return [textAt(item, 'vendor.desc')];
      case 'pol_number':
        return polNumbers;
      case 'pol_title':
        return polNumbers.map((number) => poLineSeed(number).title);
      case 'po_number':
        return polNumbers.map((number) => poLineSeed(number).poNumber);
      default:
        return [textAt(item, field)];
    }
  });
}
