/**
 * Static values several areas refer to, so that a library, vendor, currency, fund code or PO line
 * named by one area exists in the others (the sandbox has no database joining them).
 */

export interface LibrarySeed {
  readonly code: string;
  readonly name: string;
}

export const LIBRARIES: readonly LibrarySeed[] = [
  { code: 'MAIN', name: 'Main Library' },
  { code: 'LAW', name: 'Law Library' },
  { code: 'SCI', name: 'Science Library' },
  { code: 'MUSIC', name: 'Music Library' },
];

export const LIBRARY_CODES: readonly string[] = LIBRARIES.map((library) => library.code);

export interface VendorSeed {
  readonly code: string;
  readonly name: string;
  readonly accounts: readonly string[];
  readonly currencies: readonly string[];
  readonly materialSupplier: boolean;
}

export const VENDORS: readonly VendorSeed[] = [
  {
    code: 'HARRASSOWITZ',
    name: 'Otto Harrassowitz',
    accounts: ['HARRA-BOOKS', 'HARRA-SERIALS'],
    currencies: ['EUR', 'USD'],
    materialSupplier: true,
  },
  {
    code: 'EBSCO',
    name: 'EBSCO Information Services',
    accounts: ['EBSCO-SUB'],
    currencies: ['USD', 'EUR', 'GBP'],
    materialSupplier: true,
  },
  {
    code: 'GOBI',
    name: 'GOBI Library Solutions',
    accounts: ['GOBI-FIRM', 'GOBI-APPROVAL'],
    currencies: ['USD'],
    materialSupplier: true,
  },
  {
    code: 'PROQUEST',
    name: 'ProQuest',
    accounts: ['PQ-DB'],
    currencies: ['USD', 'GBP'],
    materialSupplier: true,
  },
  {
    code: 'CITYBINDERY',
    name: 'City Bindery',
    accounts: ['BIND-1'],
    currencies: ['USD'],
    materialSupplier: false,
  },
];

export function findVendor(code: string): VendorSeed | undefined {
  return VENDORS.find((vendor) => vendor.code.toLowerCase() === code.toLowerCase());
}

/** Currency, its name, and its value in the institution's currency (USD) on the base day. */
export const CURRENCIES: readonly { code: string; name: string; toBase: number }[] = [
  { code: 'USD', name: 'US Dollar', toBase: 1 },
  { code: 'EUR', name: 'Euro', toBase: 1.08 },
  { code: 'GBP', name: 'Pound Sterling', toBase: 1.27 },
  { code: 'CAD', name: 'Canadian Dollar', toBase: 0.73 },
  { code: 'JPY', name: 'Yen', toBase: 0.0066 },
  { code: 'CHF', name: 'Swiss Franc', toBase: 1.13 },
  { code: 'AUD', name: 'Australian Dollar', toBase: 0.66 },
];

export const CURRENCY_CODES: readonly string[] = CURRENCIES.map((currency) => currency.code);

/** Allocated fund codes (funds area); invoice lines and PO lines name them. */
export const FUND_CODES: readonly string[] = [
  'BOOKS-GEN',
  'SERIALS',
  'EBOOKS',
  'LAW-JRNL',
  'SCI-DB',
  'MUSIC-SCORES',
];

/** PO line numbers (po-lines area); invoice lines name them. */
export const PO_LINE_NUMBERS: readonly string[] = Array.from(
  { length: 30 },
  (_, index) => `POL-${1001 + index}`,
);

export const VAT_CODES: readonly string[] = ['STANDARD', 'REDUCED', 'EXEMPT'];
export const REPORTING_CODES: readonly string[] = ['BOOKS', 'SERIALS', 'EBOOKS', 'DATABASES'];

/** Users that may administer a license (60220). */
export const LICENSE_ADMINISTRATORS: readonly string[] = ['acq_admin', 'erm_librarian', 'jsmith'];

const TITLES = [
  'The Structure of Scientific Revolutions',
  'Journal of Legal Studies',
  'Nature',
  'The Well-Tempered Clavier: Scores',
  'Introduction to Algorithms',
  'A History of Western Philosophy',
  'Oxford English Dictionary Online',
  'The Cambridge History of Law',
  'Physical Review Letters',
  'Goldberg Variations: Urtext',
];

/** A PO line's number, its order's number and its title (po-lines area; invoices name them). */
export function poLineSeed(number: string): { number: string; poNumber: string; title: string } {
  const index = Math.max(0, PO_LINE_NUMBERS.indexOf(number));
  return {
    number,
    poNumber: `PO-${String(501 + Math.floor(index / 3))}`,
    title: TITLES[index % TITLES.length] ?? '',
  };
}
