import type { RequestHandler } from 'express';
import { sendList } from '../respond';
import { badRequest } from '../sandbox-error';
import { textAt, type Body } from './body-fields';
import { INVALID, type FundBook } from './fund-book';
import { FUND_TYPES } from './fund-seed';
import { enumParam, textParam, type Query } from './query-rules';
import { matchesSearch, recordValues, searchParam, type SearchTerm } from './search-query';

const FUND_SEARCH = ['all', 'fund_code', 'description', 'external_id', 'name'];

/** The list's query, read in the order its refusals are checked. */
interface FundFilters {
  readonly mode: 'POL' | 'ALL';
  readonly view: 'full' | 'brief';
  readonly status: string;
  readonly type: string;
  readonly period: string;
  readonly parent: string;
  readonly owner: string;
  readonly library: string;
  readonly terms: readonly SearchTerm[];
  readonly searchFields: readonly string[];
}

/** GET /acq/funds: spec §4.10. */
export function listFunds(book: FundBook): RequestHandler {
  return (req, res) => {
    const filters = fundFilters(req.query, book);
    const items = book.funds.list().filter((fund) => fundMatches(fund, filters, book));
    sendList(
      req,
      res,
      items.map((fund) => fundView(fund, filters.view)),
      { itemKey: 'fund' },
    );
  };
}

function fundFilters(query: Query, { periods, funds, owners }: FundBook): FundFilters {
  const mode = enumParam(query, 'mode', ['POL', 'ALL'], 'POL', INVALID);
  const view = enumParam(query, 'view', ['full', 'brief'], 'full', INVALID);
  const status = enumParam(query, 'status', ['ALL', 'ACTIVE', 'INACTIVE'], 'ALL', INVALID);
  const type = enumParam(query, 'entity_type', ['ALL', ...FUND_TYPES], 'ALL', INVALID);
  const period = option(
    query,
    'fiscal_period',
    periods.map((p) => p.id),
  );
  const parent = option(
    query,
    'parent_id',
    funds.list().map((fund) => String(fund.id)),
  );
  const owner = option(query, 'owner', owners);
  const library = option(query, 'library', owners);
  const terms = searchParam(query, FUND_SEARCH, INVALID);
  // spec §4.10: "When mode=POL only fund_code is searched" — another search field is the
  // row's 401873. The filters status … owner narrow the POL listing like any other (§4.10
  // defines them and does not say POL refuses them).
  const field = terms.find((term) => term.field !== 'fund_code' && term.field !== 'all');
  if (mode === 'POL' && field !== undefined) {
    throw badRequest('401873', `Filter not supported when mode=POL: ${field.field}`);
  }
  const searchFields = mode === 'POL' ? ['fund_code'] : FUND_SEARCH;
  return { mode, view, status, type, period, parent, owner, library, terms, searchFields };
}

/** A filter of ids, codes or owners: ALL, or one of `valid` (40166419 otherwise). */
function option(query: Query, name: string, valid: readonly string[]): string {
  const value = textParam(query, name, INVALID) ?? 'ALL';
  if (value !== 'ALL' && !valid.includes(value)) {
    throw badRequest('40166419', `Parameter ${name} has no valid options: ${value}`);
  }
  return value;
}

function fundMatches(fund: Body, filters: FundFilters, book: FundBook): boolean {
  const { mode, status, type, period, parent, owner, library, terms, searchFields } = filters;
  const polReady =
    textAt(fund, 'type') === 'ALLOCATED' &&
    textAt(fund, 'status') === 'ACTIVE' &&
    textAt(fund, 'fiscal_period') === book.current?.id;
  return (
    (mode === 'ALL' || polReady) &&
    (status === 'ALL' || textAt(fund, 'status') === status) &&
    (type === 'ALL' || textAt(fund, 'type') === type) &&
    (period === 'ALL' || textAt(fund, 'fiscal_period') === period) &&
    (parent === 'ALL' || textAt(fund, 'parent_fund') === parent) &&
    (owner === 'ALL' || textAt(fund, 'owner') === owner) &&
    (library === 'ALL' || [library, book.institution].includes(textAt(fund, 'owner') ?? '')) &&
    matchesSearch(
      fund,
      terms.map((term) => ({ ...term, field: term.field === 'all' ? 'all' : term.field })),
      ['all', ...searchFields],
      fundValues,
    )
  );
}

function fundValues(fund: Body, field: string): (string | undefined)[] {
  return recordValues(fund, field === 'fund_code' ? 'code' : field);
}

/** The fund as `view` shows it: all of it, or the brief fields. */
export function fundView(fund: Body, view: 'full' | 'brief'): Body {
  if (view === 'full') return fund;
  const { id, code: fundCode, name, type, status, fiscal_period } = fund;
  return { id, code: fundCode, name, type, status, fiscal_period };
}
