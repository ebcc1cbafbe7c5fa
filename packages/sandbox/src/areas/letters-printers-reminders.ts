import type { Router } from 'express';
import { sendBody, sendList } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code, textAt, type Body } from './body-fields';
import { createKeyedStore, pick } from './keyed-store';
import { enumParam, textParam } from './query-rules';
import { reminderRoutes } from './reminders';
import { LIBRARY_CODES } from './seed-values';

const LETTER_SEEDS: readonly (readonly [string, string, 'LETTER' | 'COMPONENT'])[] = [
  ['FulPlaceOnHoldShelfLetter', 'On Hold Shelf Letter', 'LETTER'],
  ['FulLoanReceiptLetter', 'Loan Receipt Letter', 'LETTER'],
  ['OrderListLetter', 'Order List Letter', 'LETTER'],
  ['InvoicePaymentLetter', 'Invoice Payment Letter', 'LETTER'],
  ['header', 'Letter header', 'COMPONENT'],
  ['footer', 'Letter footer', 'COMPONENT'],
];

/** Letters (XML-only update), printers, and reminders (reminders.ts): spec §4.5. */
export const lettersPrintersRemindersArea: SandboxArea = (router, ctx) => {
  const letters = createKeyedStore<Body>(
    (letterCode) => badRequest('40166411', `Letter code not valid: ${letterCode}`),
    LETTER_SEEDS.map(([letterCode, name, type]) => [
      letterCode,
      {
        code: letterCode,
        name,
        description: name,
        type: code(type),
        enabled: true,
        xsl: `<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><!-- ${letterCode} --></xsl:stylesheet>`,
      },
    ]),
  );

  router.get('/conf/letters', (req, res) => {
    const type = enumParam(req.query, 'type', ['LETTER', 'COMPONENT'], 'LETTER', '402119');
    const items = letters.list().filter((letter) => textAt(letter, 'type') === type);
    sendList(req, res, items, { itemKey: 'letter', paged: false });
  });

  router.get('/conf/letters/:letterCode', (req, res) => {
    sendBody(req, res, letters.get(req.params.letterCode), { xmlRoot: 'letter' });
  });

  // spec §1 rule 2 and §7 rule 5: the letter update takes XML only; JSON is 60105. The body
  // parser (parse-request-body.ts) reads the XML into its JSON form and names the root element.
  router.put('/conf/letters/:letterCode', (req, res) => {
    if (req.is('application/json')) {
      throw badRequest('60105', 'JSON is not supported for the letter update; send XML');
    }
    const current = letters.get(req.params.letterCode);
    const fields = letterFields(req.body, res.locals.xmlRoot);
    const bodyCode = textAt(fields, 'code') ?? req.params.letterCode;
    if (bodyCode !== req.params.letterCode) {
      throw badRequest(
        '40166411',
        `Letter code ${bodyCode} does not match ${req.params.letterCode}`,
      );
    }
    const updated: Body = { ...current };
    for (const name of ['name', 'description', 'xsl'] as const) {
      const value = textAt(fields, name);
      if (value !== undefined) updated[name] = value;
    }
    if (fields.enabled !== undefined) updated.enabled = String(fields.enabled) === 'true';
    sendBody(req, res, letters.put(req.params.letterCode, updated), { xmlRoot: 'letter' });
  });

  printerRoutes(router, ctx);
  reminderRoutes(router, ctx);
};

/** The fields of a `<letter>` document; another root or no XML body fails the update (60343). */
function letterFields(body: unknown, root: unknown): Body {
  if (root !== 'letter' || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('60343', 'Letter update failed: the body must be an XML <letter> document');
  }
  return body as Body;
}

function printerRoutes(router: Router, ctx: SandboxContext): void {
  const printers = createKeyedStore<Body>(
    (id) => badRequest('402899', `Invalid printer id: ${id}`),
    LIBRARY_CODES.flatMap((library, index) =>
      ['Circulation', 'Acquisitions'].map((purpose, second) => {
        const id = `${String(7200 + index * 2 + second)}0000561`;
        const printer: Body = {
          id,
          code: `${library}_${purpose.slice(0, 4).toUpperCase()}`,
          name: `${library} ${purpose} printer`,
          description: `${purpose} slips`,
          library: code(library),
          printout_queue: pick(ctx.random, [true, false]),
          email: `printer-${library.toLowerCase()}@example.org`,
        };
        return [id, printer] as const;
      }),
    ),
  );

  router.get('/conf/printers', (req, res) => {
    const library = textParam(req.query, 'library', '402469') ?? 'ALL';
    if (library !== 'ALL' && !LIBRARY_CODES.includes(library)) {
      throw badRequest('402469', `Library code not valid: ${library}`);
    }
    const queue = enumParam(
      req.query,
      'printout_queue',
      ['ALL', 'true', 'false'],
      'ALL',
      '40166410',
    );
    const name = textParam(req.query, 'name', '40166410') ?? 'ALL';
    const printerCode = textParam(req.query, 'code', '40166410') ?? 'ALL';
    const items = printers
      .list()
      .filter(
        (printer) =>
          (library === 'ALL' || textAt(printer, 'library') === library) &&
          (queue === 'ALL' || String(printer.printout_queue) === queue) &&
          (name === 'ALL' || String(printer.name).toLowerCase().includes(name.toLowerCase())) &&
          (printerCode === 'ALL' || printer.code === printerCode),
      );
    sendList(req, res, items, { itemKey: 'printer' });
  });

  router.get('/conf/printers/:printer_id', (req, res) => {
    sendBody(req, res, printers.get(req.params.printer_id), { xmlRoot: 'printer' });
  });
}
