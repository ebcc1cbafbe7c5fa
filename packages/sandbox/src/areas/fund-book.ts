import type { SandboxContext } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import type { Body } from './body-fields';
import { fiscalPeriodsAround, type FiscalPeriod } from './fiscal-periods';
import { seedFunds } from './fund-seed';
import { createIdSequence, createKeyedStore, type KeyedStore } from './keyed-store';
import { LIBRARY_CODES } from './seed-values';

/** spec §7 rule 2: invalid parameter value, the funds area's general refusal. */
export const INVALID = '40166410';

/** The funds area's state, shared by its route handlers (funds.ts, fund-list.ts). */
export interface FundBook {
  readonly institution: string;
  readonly periods: readonly FiscalPeriod[];
  readonly current: FiscalPeriod | undefined;
  readonly nextId: () => string;
  readonly funds: KeyedStore<Body>;
  /** Transactions by fund id. */
  readonly transactions: ReadonlyMap<string, readonly Body[]>;
  /** Who may own a fund: the institution and its libraries. */
  readonly owners: readonly string[];
}

export function createFundBook(ctx: SandboxContext): FundBook {
  const periods = fiscalPeriodsAround(ctx.now());
  const current = periods.find((period) => period.current);
  const nextId = createIdSequence(ctx.random, '0661');
  const seed = seedFunds(ctx, periods, nextId);
  const funds = createKeyedStore<Body>(
    (id) => badRequest(INVALID, `Parameter invalid: fund_id ${id}`),
    seed.funds.map((fund) => [String(fund.id), fund]),
  );
  return {
    institution: ctx.institution.code,
    periods,
    current,
    nextId,
    funds,
    transactions: seed.transactions,
    owners: [ctx.institution.code, ...LIBRARY_CODES],
  };
}
