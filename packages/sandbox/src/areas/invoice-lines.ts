import type { RequestHandler, Router } from 'express';
import { sendBody, sendList } from '../respond';
import type { SandboxError } from '../sandbox-error';
import { badRequest } from '../sandbox-error';
import { objectBody, textAt, type Body } from './body-fields';
import { validLine } from './invoice-rules';
import { matchesSearch, recordValues, searchParam } from './search-query';

export interface InvoiceLineDeps {
  readonly invoiceOf: (id: string, notFound?: (id: string) => SandboxError) => Body;
  readonly lines: Map<string, Body[]>;
  readonly nextId: () => string;
}

const SEARCH = ['invoice_line_number'];

/** What the line handlers share: the deps and two questions about the invoice of a path id. */
interface LineBook extends InvoiceLineDeps {
  /** The invoice's id and its lines (412400 for an unknown invoice). */
  readonly linesOf: (invoiceId: string) => [string, Body[]];
  readonly closed: (invoiceId: string) => boolean;
}

type LineHandler = RequestHandler<{ invoice_id: string; line_id: string }>;

/** Invoice lines: spec §4.11. A closed invoice takes no new line (60285) and no line update (60286). */
export function invoiceLineRoutes(router: Router, deps: InvoiceLineDeps): void {
  const { invoiceOf, lines } = deps;
  const book: LineBook = {
    ...deps,
    linesOf: (invoiceId) => {
      const id = String(invoiceOf(invoiceId).id);
      return [id, lines.get(id) ?? []];
    },
    closed: (invoiceId) => textAt(invoiceOf(invoiceId), 'invoice_status') === 'CLOSED',
  };

  router.get('/acq/invoices/:invoice_id/lines', (req, res) => {
    const [, invoiceLines] = book.linesOf(req.params.invoice_id);
    const terms = searchParam(req.query, SEARCH, '401873');
    const items = invoiceLines.filter((line) =>
      matchesSearch(line, terms, SEARCH, (item) => recordValues(item, 'number')),
    );
    sendList(req, res, items, { itemKey: 'invoice_line' });
  });
  router.post('/acq/invoices/:invoice_id/lines', createLine(book));
  router.get('/acq/invoices/:invoice_id/lines/:line_id', (req, res) => {
    const general = (id: string) => badRequest('402119', `Invoice not found: ${id}`);
    const invoiceId = String(invoiceOf(req.params.invoice_id, general).id);
    const line = (lines.get(invoiceId) ?? []).find(
      (candidate) => candidate.id === req.params.line_id,
    );
    if (line === undefined)
      throw badRequest('402119', `Invoice line not found: ${req.params.line_id}`);
    sendBody(req, res, line, { xmlRoot: 'invoice_line' });
  });
  router.put('/acq/invoices/:invoice_id/lines/:line_id', updateLine(book));
}

function createLine({ linesOf, closed, lines, nextId }: LineBook): RequestHandler<{
  invoice_id: string;
}> {
  return (req, res) => {
    const [id, invoiceLines] = linesOf(req.params.invoice_id);
    if (closed(id)) throw badRequest('60285', `Invoice not valid: ${id} is CLOSED`);
    const body = objectBody(req.body, '60255');
    const numbers = invoiceLines.map((line) => Number(line.number));
    const number = textAt(body, 'number') ?? String(Math.max(0, ...numbers) + 1);
    if (!/^[1-9]\d*$/.test(number) || numbers.includes(Number(number))) {
      throw badRequest('60306', `Line number not valid: ${number}`);
    }
    const line = { ...validLine(body), id: nextId(), number };
    lines.set(id, [...invoiceLines, line]);
    sendBody(req, res, line, { xmlRoot: 'invoice_line' });
  };
}

function updateLine({ linesOf, closed, lines }: LineBook): LineHandler {
  return (req, res) => {
    const [id, invoiceLines] = linesOf(req.params.invoice_id);
    const lineId = req.params.line_id;
    const current = invoiceLines.find((line) => line.id === lineId);
    if (current === undefined)
      throw badRequest('60287', `Line ${lineId} is not valid for invoice ${id}`);
    if (closed(id)) throw badRequest('60286', `Line update not allowed: invoice ${id} is CLOSED`);
    const body = objectBody(req.body, '60284');
    if (textAt(body, 'id') !== undefined && textAt(body, 'id') !== lineId) {
      throw badRequest(
        '60284',
        `Line not valid: body id ${String(textAt(body, 'id'))} is not ${lineId}`,
      );
    }
    if (textAt(body, 'number') !== undefined && textAt(body, 'number') !== current.number) {
      throw badRequest('60284', 'Line not valid: a line keeps its number');
    }
    const updated = { ...validLine({ ...current, ...body }), id: lineId, number: current.number };
    lines.set(
      id,
      invoiceLines.map((line) => (line.id === lineId ? updated : line)),
    );
    sendBody(req, res, updated, { xmlRoot: 'invoice_line' });
  };
}
