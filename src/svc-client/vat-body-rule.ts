/**
 * Body rule of invoice and invoice-line create/update (spec §4.11 codes 60252): a vat percentage
 * or a vat amount, not both. The spec does not show where vat sits in the body; we look where the
 * platform family puts it and where a hand-written body plausibly would:
 * - an object `invoice_vat`, `invoice_line_vat` or `vat_info` holding `percentage` or
 *   `vat_percentage`, and `amount` or `vat_amount`;
 * - top-level `vat_percentage` and `vat_amount`.
 * In an XML body (a string) the same element names are looked for. A value of 0, `""` or null
 * counts as not given: the platform sends `0.0` for both when no vat is set, and a body read and
 * written back unchanged must not be refused.
 */
export function vatBodyRule(body: unknown): string | undefined {
  const read: Reader =
    typeof body === 'string' ? (name) => element(body, name) : (name) => field(body, name);
  const blocks: Reader[] = VAT_OBJECTS.flatMap((name) =>
    typeof body === 'string'
      ? xmlBlocks(body, name).map(
          (block): Reader =>
            (inner) =>
              element(block, inner),
        )
      : [(inner: string) => field(field(body, name), inner)],
  );
  const given = (top: string, names: readonly string[]) =>
    isGiven(read(top)) || blocks.some((block) => names.some((name) => isGiven(block(name))));
  return given('vat_percentage', PERCENTAGE) && given('vat_amount', AMOUNT)
    ? 'the vat is given as a percentage or as an amount, not both (spec §4.11 code 60252)'
    : undefined;
}

/** Reads one named field (JSON) or element text (XML) of a body or of a vat object in it. */
type Reader = (name: string) => unknown;

const VAT_OBJECTS = ['invoice_vat', 'invoice_line_vat', 'vat_info'];
const PERCENTAGE = ['percentage', 'vat_percentage'];
const AMOUNT = ['amount', 'vat_amount'];

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

function xmlBlocks(xml: string, name: string): string[] {
  const pattern = new RegExp(`<${name}\\b[^>]*>([\\s\\S]*?)</${name}>`, 'g');
  return [...xml.matchAll(pattern)].map((match) => match[1] ?? '');
}

function element(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}\\b[^>]*>([^<]*)</${name}>`).exec(xml)?.[1];
}

function isGiven(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.trim() !== '' && Number(value) !== 0;
  return true;
}
