import type { SandboxContext } from '../sandbox-context';
import { code, type Body } from './body-fields';
import type { FiscalPeriod } from './fiscal-periods';
import { pick, randomInt } from './keyed-store';
import { dayText } from './query-rules';
import { PO_LINE_NUMBERS } from './seed-values';

export const FUND_TYPES = ['LEDGER', 'SUMMARY', 'ALLOCATED'] as const;
export const TRANSACTION_KINDS = [
  'ALLOCATION',
  'EXPENDITURE',
  'ENCUMBRANCE',
  'DISENCUMBRANCE',
  'TRANSFER',
] as const;

/** Allocated fund code → its summary fund and owning library (undefined: the institution). */
const ALLOCATED: readonly (readonly [string, string, string, string | undefined])[] = [
  ['BOOKS-GEN', 'General books', 'HUMANITIES', undefined],
  ['EBOOKS', 'E-books', 'HUMANITIES', undefined],
  ['MUSIC-SCORES', 'Music scores', 'HUMANITIES', 'MUSIC'],
  ['SERIALS', 'Serials', 'SCIENCES', undefined],
  ['LAW-JRNL', 'Law journals', 'SCIENCES', 'LAW'],
  ['SCI-DB', 'Science databases', 'SCIENCES', 'SCI'],
];

export interface FundSeed {
  readonly funds: Body[];
  readonly transactions: Map<string, Body[]>;
}

/** A ledger, two summary funds and six allocated funds in the previous and the current year. */
export function seedFunds(
  ctx: SandboxContext,
  periods: readonly FiscalPeriod[],
  nextId: () => string,
): FundSeed {
  const funds: Body[] = [];
  const transactions = new Map<string, Body[]>();
  const institution = ctx.institution.code;
  for (const period of periods.slice(1, 3)) {
    const fund = (
      fundCode: string,
      name: string,
      type: string,
      parent?: Body,
      owner = institution,
    ): Body => {
      const id = nextId();
      const allocated = randomInt(ctx.random, 20, 200) * 1000;
      const body: Body = {
        id,
        code: fundCode,
        name,
        description: `${name} ${period.description}`,
        external_id: `ERP-${fundCode}-${period.id.slice(4)}`,
        type: code(type),
        status: code(type === 'ALLOCATED' && ctx.random() < 0.17 ? 'INACTIVE' : 'ACTIVE'),
        fiscal_period: code(period.id, period.description),
        parent_fund:
          parent === undefined ? undefined : code(String(parent.id), String(parent.name)),
        owner: code(owner),
        available_for_library: [code(owner)],
        currency: code('USD'),
        allocated_balance: allocated,
        available_balance: Math.round(allocated * (0.2 + ctx.random() * 0.7)),
      };
      funds.push(body);
      if (type === 'ALLOCATED')
        transactions.set(id, seedTransactions(ctx, period, allocated, nextId));
      return body;
    };
    const ledger = fund('LEDGER', 'Main ledger', 'LEDGER');
    const summaries = new Map(
      ['HUMANITIES', 'SCIENCES'].map((name) => [
        name,
        fund(name, name.toLowerCase(), 'SUMMARY', ledger),
      ]),
    );
    for (const [fundCode, name, summary, owner] of ALLOCATED) {
      fund(fundCode, name, 'ALLOCATED', summaries.get(summary), owner ?? institution);
    }
  }
  return { funds, transactions };
}

function seedTransactions(
  ctx: SandboxContext,
  period: FiscalPeriod,
  allocated: number,
  nextId: () => string,
): Body[] {
  const count = randomInt(ctx.random, 3, 7);
  return Array.from({ length: count }, (_, index) => {
    const kind = index === 0 ? 'ALLOCATION' : pick(ctx.random, TRANSACTION_KINDS.slice(1));
    const amount = index === 0 ? allocated : randomInt(ctx.random, 20, 3000);
    const time = new Date(period.start.getTime() + index * 9 * 86_400_000);
    return {
      id: nextId(),
      transaction_type: code(kind),
      amount: { sum: amount.toFixed(2), currency: code('USD') },
      po_line:
        kind === 'ALLOCATION' || kind === 'TRANSFER'
          ? undefined
          : code(pick(ctx.random, PO_LINE_NUMBERS)),
      invoice_number:
        kind === 'EXPENDITURE' ? `INV-${String(randomInt(ctx.random, 1000, 9999))}` : undefined,
      borrowing_request_id:
        kind === 'EXPENDITURE' && ctx.random() < 0.3
          ? `BR-${String(randomInt(ctx.random, 100, 999))}`
          : undefined,
      transaction_time: `${dayText(time).slice(0, 10)}T10:00:00Z`,
    };
  });
}
