import type { SandboxContext } from '../sandbox-context';
import { code, type Body } from './body-fields';
import { pick, randomInt } from './keyed-store';
import { addDays, dayText, startOfDay } from './query-rules';
import { FUND_CODES, PO_LINE_NUMBERS, poLineSeed, VENDORS } from './seed-values';

export interface SeededInvoice {
  readonly invoice: Body;
  readonly lines: Body[];
}

/** Eight invoices of the material suppliers in several workflow states, with one to four lines. */
export function seedInvoices(ctx: SandboxContext, nextId: () => string): SeededInvoice[] {
  const suppliers = VENDORS.filter((vendor) => vendor.materialSupplier);
  const states: readonly [string, string][] = [
    ['InReview', 'ACTIVE'],
    ['InReview', 'ACTIVE'],
    ['Waiting_For_Payment', 'ACTIVE'],
    ['Ready_to_be_Paid', 'ACTIVE'],
    ['Closed', 'CLOSED'],
  ];
  const today = startOfDay(ctx.now());
  return Array.from({ length: 8 }, (_, index) => {
    const vendor = pick(ctx.random, suppliers);
    const [workflow, base] = pick(ctx.random, states);
    const lines = Array.from({ length: randomInt(ctx.random, 1, 4) }, (_unused, lineIndex) => {
      const poLine = pick(ctx.random, PO_LINE_NUMBERS);
      const price = randomInt(ctx.random, 20, 900);
      return {
        id: nextId(),
        number: String(lineIndex + 1),
        type: code('REGULAR'),
        po_line: code(poLine, poLineSeed(poLine).title),
        price,
        quantity: 1,
        total_price: price,
        fund_distribution: [{ fund_code: code(pick(ctx.random, FUND_CODES)), percent: 100 }],
      };
    });
    const invoice: Body = {
      id: nextId(),
      number: `${vendor.code.slice(0, 4)}-${String(24000 + index * 7)}`,
      invoice_date: dayText(addDays(today, -randomInt(ctx.random, 5, 200))),
      vendor: code(vendor.code, vendor.name),
      vendor_account: vendor.accounts[0],
      total_amount: lines.reduce((sum, line) => sum + line.total_price, 0),
      currency: code(vendor.currencies[0] ?? 'USD'),
      payment_method: code('ACCOUNTINGDEPARTMENT'),
      invoice_status: code(base),
      invoice_workflow_status: code(workflow),
      payment: { prepaid: false, payment_status: code(base === 'CLOSED' ? 'PAID' : 'NOT_PAID') },
      owner: code(ctx.institution.code),
      creation_form: code(pick(ctx.random, ['API', 'MANUALLY', 'EDI'])),
      invoice_reference_number: `REF-${String(randomInt(ctx.random, 1000, 9999))}`,
      additional_pol_reference: index % 3 === 0 ? `ADD-${String(index)}` : undefined,
    };
    return { invoice, lines };
  });
}
