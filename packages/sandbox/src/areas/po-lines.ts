import { sendList } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { arrayAt, code, textAt, type Body } from './body-fields';
import { pick, randomInt } from './keyed-store';
import { addDays, dayText, enumParam } from './query-rules';
import { matchesSearch, searchParam } from './search-query';
import { FUND_CODES, LIBRARY_CODES, PO_LINE_NUMBERS, poLineSeed, VENDORS } from './seed-values';
import { sortedBy } from './sort-order';

/** spec §4.13 codes are not shown; the sandbox answers 40166410 (parameter value invalid). */
const INVALID = '40166410';
const LINE_FIELDS = [
  'title',
  'author',
  'mms_id',
  'publisher',
  'publication_year',
  'publication_place',
  'issn_isbn',
  'shelving_location',
  'vendor_code',
  'vendor_name',
  'vendor_account',
  'fund_code',
  'fund_name',
  'number',
  'po_number',
  'invoice_reference',
];
const ITEM_FIELDS = [
  'enumeration_a',
  'enumeration_b',
  'enumeration_c',
  'chronology_i',
  'chronology_j',
  'chronology_k',
  'item_description',
  'item_library',
];
const SEARCH_FIELDS = ['all', ...LINE_FIELDS, ...ITEM_FIELDS];
const ORDER_FIELDS = ['title', 'number', 'created_date', 'po_number'];
const ITEM_ORDER_FIELDS = ITEM_FIELDS.filter((field) => field !== 'item_library');
const STATUSES = ['ALL', 'ALL_WITH_CLOSED', 'ACTIVE', 'CLOSED', 'CANCELLED'] as const;
const METHODS = [
  'PURCHASE',
  'GIFT',
  'APPROVAL',
  'EXCHANGE',
  'DEPOSITORY',
  'TECHNICAL',
  'VENDOR_SYSTEM',
];
/** spec §8: item-field searches retrieve a limited number of records (number not shown; ours). */
export const ITEM_SEARCH_LIMIT = 20;

/** PO line list: spec §4.13. */
export const poLinesArea: SandboxArea = (router, ctx) => {
  const lines = seedPoLines(ctx);

  router.get('/acq/po-lines', (req, res) => {
    const terms = searchParam(req.query, SEARCH_FIELDS, INVALID);
    const itemSearch = terms.some((term) => ITEM_FIELDS.includes(term.field));
    const status = enumParam(req.query, 'status', STATUSES, 'ALL', INVALID);
    const orderFields = itemSearch ? [...ORDER_FIELDS, ...ITEM_ORDER_FIELDS] : ORDER_FIELDS;
    const orderBy = enumParam(req.query, 'order_by', orderFields, 'title', INVALID);
    const direction = enumParam(req.query, 'direction', ['asc', 'desc'], 'desc', INVALID);
    const method = enumParam(req.query, 'acquisition_method', ['ALL', ...METHODS], 'ALL', INVALID);
    const matching = lines.filter((line) => {
      const lineStatus = textAt(line, 'status');
      const statusOk =
        status === 'ALL'
          ? lineStatus !== 'CLOSED'
          : status === 'ALL_WITH_CLOSED' || lineStatus === status;
      return (
        statusOk &&
        (method === 'ALL' || textAt(line, 'acquisition_method') === method) &&
        matchesSearch(line, terms, ['all', ...LINE_FIELDS], valuesOf)
      );
    });
    const limited = itemSearch ? matching.slice(0, ITEM_SEARCH_LIMIT) : matching;
    // spec §4.13: the secondary sort is number.
    const ordered = sortedBy(
      limited,
      direction,
      (line) => valuesOf(line, orderBy)[0] ?? '',
      (line) => String(line.number),
    );
    sendList(req, res, ordered, { itemKey: 'po_line' });
  });
};

function valuesOf(line: Body, field: string): (string | undefined)[] {
  const items = arrayAt(line, 'item');
  const funds = arrayAt(line, 'fund_distribution');
  switch (field) {
    case 'vendor_code':
      return [textAt(line, 'vendor')];
    case 'vendor_name':
      return [textAt(line, 'vendor.desc')];
    case 'fund_code':
      return funds.map((fund) => textAt(fund, 'fund_code'));
    case 'fund_name':
      return funds.map((fund) => textAt(fund, 'fund_code.desc'));
    case 'mms_id':
    case 'title':
    case 'author':
    case 'publisher':
    case 'publication_year':
    case 'publication_place':
    case 'issn_isbn':
      return [textAt(line, `resource_metadata.${field}`)];
    case 'item_library':
      return items.map((item) => textAt(item, 'library'));
    default:
      return ITEM_FIELDS.includes(field)
        ? items.map((item) => textAt(item, field))
        : [textAt(line, field)];
  }
}

function seedPoLines(ctx: SandboxContext): Body[] {
  const authors = [
    'Kuhn, Thomas S.',
    'Bach, Johann Sebastian',
    'Russell, Bertrand',
    'Cormen, Thomas H.',
    '',
  ];
  const publishers = [
    ['Chicago', 'University of Chicago Press'],
    ['Oxford', 'Oxford University Press'],
    ['Kassel', 'Bärenreiter'],
  ];
  return PO_LINE_NUMBERS.map((number, index) => {
    const seed = poLineSeed(number);
    const vendor = pick(
      ctx.random,
      VENDORS.filter((candidate) => candidate.materialSupplier),
    );
    const fundCode = pick(ctx.random, FUND_CODES);
    const [place, publisher] = pick(ctx.random, publishers);
    const serial = /Journal|Nature|Letters/.test(seed.title);
    const library = pick(ctx.random, LIBRARY_CODES);
    return {
      number,
      po_number: seed.poNumber,
      status: code(pick(ctx.random, ['ACTIVE', 'ACTIVE', 'ACTIVE', 'CLOSED', 'CANCELLED'])),
      acquisition_method: code(pick(ctx.random, ['PURCHASE', 'PURCHASE', 'GIFT', 'APPROVAL'])),
      resource_metadata: {
        mms_id: `99${String(100_000 + index * 37)}3506`,
        title: seed.title,
        author: pick(ctx.random, authors),
        publisher,
        publication_place: place,
        publication_year: String(randomInt(ctx.random, 1950, 2024)),
        issn_isbn: serial
          ? `0028-${String(1000 + index)}`
          : `978019${String(1_000_000 + index * 7919)}`,
      },
      vendor: code(vendor.code, vendor.name),
      vendor_account: vendor.accounts[0],
      fund_distribution: [{ fund_code: code(fundCode, fundCode.toLowerCase()), percent: 100 }],
      shelving_location: `${library}_STACKS`,
      invoice_reference:
        ctx.random() < 0.4 ? `INV-${String(randomInt(ctx.random, 1000, 9999))}` : undefined,
      created_date: dayText(addDays(ctx.now(), -randomInt(ctx.random, 1, 700))),
      item: serial
        ? [
            {
              enumeration_a: String(randomInt(ctx.random, 1, 60)),
              enumeration_b: String(randomInt(ctx.random, 1, 12)),
              chronology_i: String(randomInt(ctx.random, 2000, 2025)),
              item_description: 'v. issue',
              library,
            },
          ]
        : [{ item_description: 'copy 1', library }],
    };
  });
}
