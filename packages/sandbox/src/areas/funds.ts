import { sendBody, sendList, sendNoContent } from '../respond';
import type { SandboxArea } from '../sandbox-context';
import { badRequest, notFound } from '../sandbox-error';
import { code, objectBody, textAt, type Body } from './body-fields';
import { fiscalPeriodsAround, type FiscalPeriod } from './fiscal-periods';
import { FUND_TYPES, seedFunds, TRANSACTION_KINDS } from './fund-seed';
import { createIdSequence, createKeyedStore } from './keyed-store';
import { enumParam, textParam } from './query-rules';
import { matchesSearch, recordValues, searchParam } from './search-query';
import { LIBRARY_CODES } from './seed-values';

const INVALID = '40166410';
const INVALID_FIELD = '40166404';
const FUND_SEARCH = ['all', 'fund_code', 'description', 'external_id', 'name'];
const TRANSACTION_SEARCH = ['amount', 'po_line', 'invoice_number', 'borrowing_request_id'];

/** Funds and ledgers across fiscal periods, their operations and transactions: spec §4.10. */
export const fundsArea: SandboxArea = (router, ctx) => {
  const periods = fiscalPeriodsAround(ctx.now());
  const current = periods.find((period) => period.current);
  const nextId = createIdSequence(ctx.random, '0661');
  const seed = seedFunds(ctx, periods, nextId);
  const funds = createKeyedStore<Body>(
    (id) => badRequest(INVALID, `Parameter invalid: fund_id ${id}`),
    seed.funds.map((fund) => [String(fund.id), fund]),
  );
  const owners = [ctx.institution.code, ...LIBRARY_CODES];
  const fundIdNotValid = (id: string) => badRequest('401873', `Fund id not valid: ${id}`);

  router.get('/acq/funds', (req, res) => {
    const mode = enumParam(req.query, 'mode', ['POL', 'ALL'], 'POL', INVALID);
    const view = enumParam(req.query, 'view', ['full', 'brief'], 'full', INVALID);
    const status = enumParam(req.query, 'status', ['ALL', 'ACTIVE', 'INACTIVE'], 'ALL', INVALID);
    const type = enumParam(req.query, 'entity_type', ['ALL', ...FUND_TYPES], 'ALL', INVALID);
    const option = (name: string, valid: readonly string[]): string => {
      const value = textParam(req.query, name, INVALID) ?? 'ALL';
      if (value !== 'ALL' && !valid.includes(value)) {
        throw badRequest('40166419', `Parameter ${name} has no valid options: ${value}`);
      }
      return value;
    };
    const period = option(
      'fiscal_period',
      periods.map((p) => p.id),
    );
    const parent = option(
      'parent_id',
      funds.list().map((fund) => String(fund.id)),
    );
    const owner = option('owner', owners);
    const library = option('library', owners);
    const terms = searchParam(req.query, FUND_SEARCH, INVALID);
    // spec §4.10: "When mode=POL only fund_code is searched" — another search field is the
    // row's 401873. The filters status … owner narrow the POL listing like any other (§4.10
    // defines them and does not say POL refuses them).
    const field = terms.find((term) => term.field !== 'fund_code' && term.field !== 'all');
    if (mode === 'POL' && field !== undefined) {
      throw badRequest('401873', `Filter not supported when mode=POL: ${field.field}`);
    }
    const searchFields = mode === 'POL' ? ['fund_code'] : FUND_SEARCH;
    const items = funds.list().filter((fund) => {
      const polReady =
        textAt(fund, 'type') === 'ALLOCATED' &&
        textAt(fund, 'status') === 'ACTIVE' &&
        textAt(fund, 'fiscal_period') === current?.id;
      return (
        (mode === 'ALL' || polReady) &&
        (status === 'ALL' || textAt(fund, 'status') === status) &&
        (type === 'ALL' || textAt(fund, 'type') === type) &&
        (period === 'ALL' || textAt(fund, 'fiscal_period') === period) &&
        (parent === 'ALL' || textAt(fund, 'parent_fund') === parent) &&
        (owner === 'ALL' || textAt(fund, 'owner') === owner) &&
        (library === 'ALL' ||
          [library, ctx.institution.code].includes(textAt(fund, 'owner') ?? '')) &&
        matchesSearch(
          fund,
          terms.map((term) => ({ ...term, field: term.field === 'all' ? 'all' : term.field })),
          ['all', ...searchFields],
          fundValues,
        )
      );
    });
    sendList(
      req,
      res,
      items.map((fund) => viewOf(fund, view)),
      { itemKey: 'fund' },
    );
  });

  router.post('/acq/funds', (req, res) => {
    enumParam(req.query, 'rules_level', ['fund', 'parent'], 'fund', INVALID);
    const fund = validFund(objectBody(req.body, '410873'), funds.list(), periods, current, owners);
    const id = nextId();
    sendBody(req, res, funds.put(id, { ...fund, id }), { xmlRoot: 'fund' });
  });

  router.get('/acq/funds/:fund_id', (req, res) => {
    const view = enumParam(req.query, 'view', ['full', 'brief'], 'full', INVALID);
    // spec §4.10 lists no 400 for the read: an unknown id names nothing (404, sandbox-error.ts).
    const fundNotFound = (id: string) => notFound(`Fund not found: ${id}`);
    sendBody(req, res, viewOf(funds.get(req.params.fund_id, fundNotFound), view), {
      xmlRoot: 'fund',
    });
  });

  router.put('/acq/funds/:fund_id', (req, res) => {
    enumParam(req.query, 'rules_level', ['fund', 'parent'], 'fund', INVALID);
    const id = req.params.fund_id;
    const stored = funds.get(id);
    const others = funds.list().filter((fund) => fund.id !== id);
    const fund = validFund(
      { ...stored, ...objectBody(req.body, '410873') },
      others,
      periods,
      current,
      owners,
    );
    sendBody(req, res, funds.put(id, { ...stored, ...fund, id }), { xmlRoot: 'fund' });
  });

  router.post('/acq/funds/:fund_id', (req, res) => {
    const fund = funds.get(req.params.fund_id);
    const op = textParam(req.query, 'op', INVALID);
    if (op !== 'activate' && op !== 'deactivate') {
      throw badRequest(
        INVALID,
        `Parameter invalid: op ${op ?? '(missing)'} (activate or deactivate)`,
      );
    }
    fund.status = code(op === 'activate' ? 'ACTIVE' : 'INACTIVE');
    sendBody(req, res, fund, { xmlRoot: 'fund' });
  });

  router.delete('/acq/funds/:fund_id', (req, res) => {
    const id = req.params.fund_id;
    funds.get(id);
    const hasChildren = funds.list().some((fund) => textAt(fund, 'parent_fund') === id);
    if (hasChildren || (seed.transactions.get(id) ?? []).length > 0) {
      throw badRequest('410873', `Request failed: fund ${id} has child funds or transactions`);
    }
    funds.remove(id);
    sendNoContent(res);
  });

  router.get('/acq/funds/:fund_id/transactions', (req, res) => {
    const id = req.params.fund_id;
    funds.get(id, fundIdNotValid);
    const kind = enumParam(
      req.query,
      'filter',
      ['ALL', ...TRANSACTION_KINDS],
      'ALL',
      INVALID_FIELD,
    );
    const terms = searchParam(req.query, TRANSACTION_SEARCH, '60106');
    const items = (seed.transactions.get(id) ?? []).filter(
      (transaction) =>
        (kind === 'ALL' || textAt(transaction, 'transaction_type') === kind) &&
        matchesSearch(transaction, terms, TRANSACTION_SEARCH, transactionValues),
    );
    sendList(req, res, items, { itemKey: 'transaction' });
  });
};

function fundValues(fund: Body, field: string): (string | undefined)[] {
  return recordValues(fund, field === 'fund_code' ? 'code' : field);
}

function transactionValues(transaction: Body, field: string): (string | undefined)[] {
  return field === 'amount'
    ? [textAt(transaction, 'amount.sum')]
    : recordValues(transaction, field);
}

function viewOf(fund: Body, view: 'full' | 'brief'): Body {
  if (view === 'full') return fund;
  const { id, code: fundCode, name, type, status, fiscal_period } = fund;
  return { id, code: fundCode, name, type, status, fiscal_period };
}

/** The checks of a fund create and update (40166404 names the field). */
function validFund(
  body: Body,
  others: readonly Body[],
  periods: readonly FiscalPeriod[],
  current: FiscalPeriod | undefined,
  owners: readonly string[],
): Body {
  const invalid = (field: string, value: string | undefined) =>
    badRequest(INVALID_FIELD, `Invalid field ${field}: ${value ?? '(missing)'}`);
  const fundCode = textAt(body, 'code');
  const name = textAt(body, 'name');
  const type = textAt(body, 'type');
  if (fundCode === undefined) throw invalid('code', fundCode);
  if (name === undefined) throw invalid('name', name);
  if (type === undefined || !(FUND_TYPES as readonly string[]).includes(type))
    throw invalid('type', type);
  const periodId = textAt(body, 'fiscal_period') ?? current?.id;
  const period = periods.find((candidate) => candidate.id === periodId);
  if (period === undefined) throw invalid('fiscal_period', periodId);
  const status = textAt(body, 'status') ?? 'ACTIVE';
  if (status !== 'ACTIVE' && status !== 'INACTIVE') throw invalid('status', status);
  const owner = textAt(body, 'owner') ?? owners[0];
  if (owner === undefined || !owners.includes(owner)) throw invalid('owner', owner);
  const parentId = textAt(body, 'parent_fund');
  const parent = others.find((fund) => fund.id === parentId);
  const parentOk =
    type === 'LEDGER'
      ? parentId === undefined
      : parent !== undefined &&
        textAt(parent, 'type') !== 'ALLOCATED' &&
        textAt(parent, 'fiscal_period') === period.id;
  if (!parentOk) throw invalid('parent_fund', parentId);
  const taken = others.some(
    (fund) => fund.code === fundCode && textAt(fund, 'fiscal_period') === period.id,
  );
  if (taken)
    throw badRequest(
      INVALID_FIELD,
      `Invalid field code: ${fundCode} exists in ${period.description}`,
    );
  return {
    ...body,
    code: fundCode,
    name,
    type: code(type),
    status: code(status),
    fiscal_period: code(period.id, period.description),
    owner: code(owner),
    parent_fund: parent === undefined ? undefined : code(String(parent.id), String(parent.name)),
  };
}
