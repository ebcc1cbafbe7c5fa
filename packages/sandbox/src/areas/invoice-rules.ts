import { badRequest } from '../sandbox-error';
import { arrayAt, code, enumField, fieldAt, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import { dayText, parseDay } from './query-rules';
import {
  CURRENCY_CODES,
  FUND_CODES,
  findVendor,
  type VendorSeed,
  PO_LINE_NUMBERS,
  poLineSeed,
  REPORTING_CODES,
  VAT_CODES,
} from './seed-values';

const PAYMENT_METHODS = [
  'ACCOUNTINGDEPARTMENT',
  'BANKTRANSFER',
  'CREDITCARD',
  'CASH',
  'DEPOSITACCOUNT',
];
const PAYMENT_STATUSES = ['NOT_PAID', 'PAID', 'PARTIALLY_PAID'];
const LINE_TYPES = ['REGULAR', 'ADJUSTMENT', 'SHIPMENT', 'OVERHEAD', 'INSURANCE', 'OTHER'];

/**
 * VAT on an invoice or a line: `vat_info: { percentage, amount }`, one of the two (60252).
 * The spec names the fields, not the shape; this one is ours (docs/areas.md). A value of
 * 0, `""` or null counts as not given, as in the client (vat-body-rule.ts): the platform writes
 * `0.0` for both when no vat is set, so a body read and sent back unchanged passes.
 */
function checkVat(body: Body): Body | undefined {
  const percentage = vatValue(body, 'vat_info.percentage');
  const amount = vatValue(body, 'vat_info.amount');
  if (percentage !== undefined && amount !== undefined) {
    throw badRequest('60252', 'VAT percentage or VAT amount is allowed, not both');
  }
  const vatCode = textAt(body, 'vat_code');
  if (vatCode !== undefined && !VAT_CODES.includes(vatCode))
    throw badRequest('60253', `VAT code not valid: ${vatCode}`);
  return percentage === undefined && amount === undefined
    ? undefined
    : percentage === undefined
      ? { amount: Number(amount) }
      : { percentage: Number(percentage) };
}

function vatValue(body: Body, path: string): string | undefined {
  const text = textAt(body, path);
  return text === undefined || Number(text) === 0 ? undefined : text;
}

/** spec §4.11 invoice save codes, in the order a reader checks the payload. */
export function validInvoice(body: Body, others: readonly Body[], owners: readonly string[]): Body {
  const vendor = invoiceVendor(body);
  const number = textAt(body, 'number');
  if (number === undefined) throw badRequest('60233', 'Invoice number is missing');
  if (others.some((other) => other.number === number && textAt(other, 'vendor') === vendor.code)) {
    throw badRequest('60288', `Invoice number ${number} is not unique for vendor ${vendor.code}`);
  }
  const dateText = textAt(body, 'invoice_date');
  if (dateText === undefined) throw badRequest('60234', 'Invoice date is missing');
  const date = parseDay(dateText);
  if (date === undefined) throw badRequest('402119', `Invalid invoice_date: ${dateText}`);
  const total = Number(textAt(body, 'total_amount'));
  if (textAt(body, 'total_amount') === undefined || !Number.isFinite(total)) {
    throw badRequest('60235', 'Total amount is missing');
  }
  const { currency, account } = vendorTerms(body, vendor);
  const payment = paymentFields(body, owners);
  return {
    ...body,
    number,
    invoice_date: dayText(date),
    vendor: code(vendor.code, vendor.name),
    vendor_account: account,
    total_amount: total,
    currency: code(currency),
    payment_method: code(payment.method),
    invoice_workflow_status: code(payment.workflow),
    payment: { prepaid: payment.prepaid, payment_status: code(payment.paymentStatus) },
    explicit_ratio: payment.ratios,
    owner: code(payment.owner),
    vat_info: payment.vat,
    vat_code:
      textAt(body, 'vat_code') === undefined ? undefined : code(String(textAt(body, 'vat_code'))),
  };
}

/** 4028805 no vendor, 60242 a vendor that supplies no material. */
function invoiceVendor(body: Body): VendorSeed {
  const vendorCode = textAt(body, 'vendor');
  if (vendorCode === undefined) throw badRequest('4028805', 'Vendor is missing from the payload');
  const vendor = findVendor(vendorCode);
  if (vendor === undefined || !vendor.materialSupplier) {
    throw badRequest('60242', `Vendor is not a material supplier: ${vendorCode}`);
  }
  return vendor;
}

/** The currency (60236, 60243) and the account (60237), the vendor's first by default. */
function vendorTerms(body: Body, vendor: VendorSeed): { currency: string; account: string } {
  const currency = textAt(body, 'currency') ?? vendor.currencies[0] ?? 'USD';
  if (!CURRENCY_CODES.includes(currency))
    throw badRequest('60236', `Currency not valid: ${currency}`);
  if (!vendor.currencies.includes(currency)) {
    throw badRequest('60243', `Vendor ${vendor.code} does not support currency ${currency}`);
  }
  const account = textAt(body, 'vendor_account') ?? vendor.accounts[0] ?? '';
  if (!vendor.accounts.includes(account))
    throw badRequest('60237', `Vendor account not valid: ${account}`);
  return { currency, account };
}

/** The payment and ownership fields, 60238 to 60246 and the VAT checks, in that order. */
function paymentFields(body: Body, owners: readonly string[]) {
  const method = enumField(
    body,
    'payment_method',
    PAYMENT_METHODS,
    'ACCOUNTINGDEPARTMENT',
    '60238',
  );
  const workflow = enumField(
    body,
    'invoice_workflow_status',
    codesOf('InvoiceStatus'),
    'InReview',
    '60239',
  );
  const prepaid = fieldAt(body, 'payment.prepaid') ?? false;
  if (typeof prepaid !== 'boolean')
    throw badRequest('60240', `Prepaid not valid: ${String(prepaid)}`);
  const ratios = explicitRatios(body);
  const paymentStatus = enumField(
    body,
    'payment.payment_status',
    PAYMENT_STATUSES,
    'NOT_PAID',
    '60245',
  );
  const owner = enumField(body, 'owner', owners, owners[0] ?? '', '60246');
  const vat = checkVat(body);
  return { method, workflow, prepaid, ratios, paymentStatus, owner, vat };
}

/** 60241 a rate that is not a positive number, 60244 the same currency twice. */
function explicitRatios(body: Body): Body[] | undefined {
  const entries = arrayAt(body, 'explicit_ratio');
  const seen = new Set<string>();
  for (const entry of entries) {
    const currency = textAt(entry, 'currency') ?? '';
    const rate = Number(textAt(entry, 'rate'));
    if (!CURRENCY_CODES.includes(currency) || !(rate > 0)) {
      throw badRequest(
        '60241',
        `Explicit ratio not valid: ${currency} ${String(textAt(entry, 'rate'))}`,
      );
    }
    if (seen.has(currency))
      throw badRequest('60244', `Duplicate currency in the explicit ratio: ${currency}`);
    seen.add(currency);
  }
  return entries.length === 0
    ? undefined
    : entries.map((entry) => ({
        currency: code(String(textAt(entry, 'currency'))),
        rate: Number(textAt(entry, 'rate')),
      }));
}

/** spec §4.11 invoice line save codes. */
export function validLine(body: Body): Body {
  const type = enumField(body, 'type', LINE_TYPES, 'REGULAR', '60247');
  const poLine = textAt(body, 'po_line');
  if (poLine !== undefined && !PO_LINE_NUMBERS.includes(poLine))
    throw badRequest('60248', `PO line not found: ${poLine}`);
  const from = textAt(body, 'subscription_from_date');
  const to = textAt(body, 'subscription_to_date');
  const [fromDay, toDay] = [
    from === undefined ? undefined : parseDay(from),
    to === undefined ? undefined : parseDay(to),
  ];
  if (
    (from === undefined) !== (to === undefined) ||
    (from !== undefined && (fromDay === undefined || toDay === undefined))
  ) {
    throw badRequest('60249', 'Subscription from/to dates not found: give both, as YYYY-MM-DD');
  }
  const reporting = textAt(body, 'reporting_code');
  if (reporting !== undefined && !REPORTING_CODES.includes(reporting)) {
    throw badRequest('60251', `Reporting code not valid: ${reporting}`);
  }
  const vat = checkVat(body);
  const funds = arrayAt(body, 'fund_distribution').map((entry) => {
    const fundCode = textAt(entry, 'fund_code') ?? '';
    if (!FUND_CODES.includes(fundCode))
      throw badRequest('60254', `Fund code not valid: ${fundCode}`);
    const [percent, amount] = [textAt(entry, 'percent'), textAt(entry, 'amount')];
    if (percent === undefined && amount === undefined) {
      throw badRequest('60257', `Fund percent or amount is required for ${fundCode}`);
    }
    return {
      fund_code: code(fundCode),
      percent: percent === undefined ? undefined : Number(percent),
      amount: amount === undefined ? undefined : Number(amount),
    };
  });
  return {
    ...body,
    type: code(type),
    po_line: poLine === undefined ? undefined : code(poLine, poLineSeed(poLine).title),
    subscription_from_date: fromDay === undefined ? undefined : dayText(fromDay),
    subscription_to_date: toDay === undefined ? undefined : dayText(toDay),
    reporting_code: reporting === undefined ? undefined : code(reporting),
    fund_distribution: funds.length === 0 ? undefined : funds,
    vat_info: vat,
    vat_code:
      textAt(body, 'vat_code') === undefined ? undefined : code(String(textAt(body, 'vat_code'))),
  };
}
