import { XMLParser } from 'fast-xml-parser';
import { isRecord } from './is-record';

/**
 * Body rule of invoice and invoice-line create/update (spec §4.11 codes 60252): a vat percentage
 * or a vat amount, not both. The spec does not show where vat sits in the body; we look where the
 * platform family puts it and where a hand-written body plausibly would, on the body's own object
 * only (the invoice, or the line):
 * - an object `invoice_vat`, `invoice_line_vat` or `vat_info` holding `percentage` or
 *   `vat_percentage`, and `amount` or `vat_amount`;
 * - top-level `vat_percentage` and `vat_amount`.
 * Objects nested deeper (an invoice's lines) are other objects: an invoice-level percentage and a
 * line's amount do not break the rule. An XML body (a string) is read into the object its JSON
 * twin gives (root element → object, child elements → fields) and checked the same way. A value
 * of 0, `""` or null counts as not given: the platform sends `0.0` for both when no vat is set,
 * and a body read and written back unchanged must not be refused.
 */
export function vatBodyRule(body: unknown): string | undefined {
  const object = typeof body === 'string' ? rootObjectOf(body) : body;
  const vatObjects = VAT_OBJECTS.map((name) => field(object, name));
  const given = (topLevel: string, names: readonly string[]) =>
    isGiven(field(object, topLevel)) ||
    vatObjects.some((vat) => names.some((name) => isGiven(field(vat, name))));
  return given('vat_percentage', PERCENTAGE) && given('vat_amount', AMOUNT)
    ? 'the vat is given as a percentage or as an amount, not both (spec §4.11 code 60252)'
    : undefined;
}

const VAT_OBJECTS = ['invoice_vat', 'invoice_line_vat', 'vat_info'];
const PERCENTAGE = ['percentage', 'vat_percentage'];
const AMOUNT = ['amount', 'vat_amount'];

function field(value: unknown, name: string): unknown {
  return isRecord(value) ? value[name] : undefined;
}

/**
 * The root element's content as an object; undefined for a document that does not parse (the
 * platform judges it then). Entities are left unexpanded and attributes ignored: vat values are
 * element text.
 */
function rootObjectOf(xml: string): unknown {
  const parser = new XMLParser({
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    processEntities: false,
    removeNSPrefix: true,
    parseTagValue: false,
  });
  try {
    const document: unknown = parser.parse(xml, true);
    return isRecord(document) ? Object.values(document)[0] : undefined;
  } catch {
    return undefined;
  }
}

function isGiven(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.trim() !== '' && Number(value) !== 0;
  return true;
}
