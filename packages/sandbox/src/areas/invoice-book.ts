import type { Router } from 'express';
import type { SandboxContext } from '../sandbox-context';
import type { SandboxError } from '../sandbox-error';
import { badRequest } from '../sandbox-error';
import { attachmentRoutes } from './attachments';
import type { Body } from './body-fields';
import { invoiceLineRoutes } from './invoice-lines';
import { seedInvoices } from './invoice-seed';
import { createIdSequence, createKeyedStore, type KeyedStore } from './keyed-store';
import { enumParam, type Query } from './query-rules';
import { LIBRARY_CODES } from './seed-values';

/** The invoices area's state, shared by its route handlers (invoices.ts). */
export interface InvoiceBook {
  readonly invoices: KeyedStore<Body>;
  /** Lines by invoice id. */
  readonly lines: Map<string, Body[]>;
  /** Who may own an invoice: the institution and its libraries. */
  readonly owners: readonly string[];
  readonly nextId: () => string;
  /** The invoice of a path id; 60100 for a malformed id, `missing` (412400) for an unknown one. */
  invoiceOf(id: string, missing?: (id: string) => SandboxError): Body;
  /** The invoice as GET answers it: `view`, `expand` and `link` applied. */
  present(invoice: Body, query: Query): Body;
}

/**
 * Seeds the invoices and registers the routes of their lines (invoice-lines.ts) and attachments
 * (attachments.ts), which need the invoices to find their owner.
 */
export function createInvoiceBook(router: Router, ctx: SandboxContext): InvoiceBook {
  const nextId = createIdSequence(ctx.random, '0461');
  const seeded = seedInvoices(ctx, nextId);
  const notFound = (id: string) => badRequest('412400', `Invoice not found: ${id}`);
  const invoices = createKeyedStore<Body>(
    notFound,
    seeded.map(({ invoice }) => [String(invoice.id), invoice]),
  );
  const lines = new Map(
    seeded.map(({ invoice, lines: seededLines }) => [String(invoice.id), seededLines]),
  );
  const invoiceOf = (id: string, missing = notFound) =>
    invoices.get(numericId(id, 'Invoice id'), missing);

  const attachments = attachmentRoutes(router, {
    ownerPath: '/acq/invoices/:parent',
    owner: (req, action) =>
      String(
        invoiceOf(
          String(req.params.parent),
          action === 'list' ? notFound : (id) => badRequest('402401', `Invoice not found: ${id}`),
        ).id,
      ),
    writable: false,
    nextId,
    now: ctx.now,
  });
  invoiceLineRoutes(router, { invoiceOf, lines, nextId });

  const present = (invoice: Body, query: Query): Body => {
    const view = enumParam(query, 'view', ['', 'full', 'brief'], '', '402119');
    const expand = enumParam(query, 'expand', ['', 'none', 'attachments'], '', '402119');
    const id = String(invoice.id);
    return {
      ...invoice,
      invoice_line: view === 'brief' ? undefined : (lines.get(id) ?? []),
      attachment: expand === 'attachments' ? attachments.briefOf(id) : undefined,
      link: `${ctx.publicBaseUrl()}/svcws/v1/acq/invoices/${id}`,
    };
  };
  return {
    invoices,
    lines,
    owners: [ctx.institution.code, ...LIBRARY_CODES],
    nextId,
    invoiceOf,
    present,
  };
}

/** spec §7 rule 2: 60100 for an id that is not a number above zero. */
function numericId(id: string, what: string): string {
  if (!/^[1-9]\d*$/.test(id))
    throw badRequest('60100', `${what} must be a number above zero: ${id}`);
  return id;
}
