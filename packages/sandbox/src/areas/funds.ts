import type { RequestHandler } from 'express';
import { sendBody, sendList, sendNoContent } from '../respond';
import type { SandboxArea } from '../sandbox-context';
import { badRequest, notFound } from '../sandbox-error';
import { code, objectBody, textAt, type Body } from './body-fields';
import type { FiscalPeriod } from './fiscal-periods';
import { createFundBook, INVALID, type FundBook } from './fund-book';
import { fundView, listFunds } from './fund-list';
import { FUND_TYPES, TRANSACTION_KINDS } from './fund-seed';
import { enumParam, textParam } from './query-rules';
import { matchesSearch, recordValues, searchParam } from './search-query';

const INVALID_FIELD = '40166404';
const TRANSACTION_SEARCH = ['amount', 'po_line', 'invoice_number', 'borrowing_request_id'];

type FundHandler = RequestHandler<{ fund_id: string }>;

/** Funds and ledgers across fiscal periods, their operations and transactions: spec §4.10. */
export const fundsArea: SandboxArea = (router, ctx) => {
  const book = createFundBook(ctx);
  router.get('/acq/funds', listFunds(book));
  router.post('/acq/funds', createFund(book));
  router.get('/acq/funds/:fund_id', readFund(book));
  router.put('/acq/funds/:fund_id', updateFund(book));
  router.post('/acq/funds/:fund_id', runFundOp(book));
  router.delete('/acq/funds/:fund_id', deleteFund(book));
  router.get('/acq/funds/:fund_id/transactions', listTransactions(book));
};

function createFund({ funds, periods, current, owners, nextId }: FundBook): RequestHandler {
  return (req, res) => {
    enumParam(req.query, 'rules_level', ['fund', 'parent'], 'fund', INVALID);
    const fund = validFund(objectBody(req.body, '410873'), funds.list(), periods, current, owners);
    const id = nextId();
    sendBody(req, res, funds.put(id, { ...fund, id }), { xmlRoot: 'fund' });
  };
}

function readFund({ funds }: FundBook): FundHandler {
  return (req, res) => {
    const view = enumParam(req.query, 'view', ['full', 'brief'], 'full', INVALID);
    // spec §4.10 lists no 400 for the read: an unknown id names nothing (404, sandbox-error.ts).
    const fundNotFound = (id: string) => notFound(`Fund not found: ${id}`);
    sendBody(req, res, fundView(funds.get(req.params.fund_id, fundNotFound), view), {
      xmlRoot: 'fund',
    });
  };
}

function updateFund({ funds, periods, current, owners }: FundBook): FundHandler {
  return (req, res) => {
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
  };
}

function runFundOp({ funds }: FundBook): FundHandler {
  return (req, res) => {
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
  };
}

function deleteFund({ funds, transactions }: FundBook): FundHandler {
  return (req, res) => {
    const id = req.params.fund_id;
    funds.get(id);
    const hasChildren = funds.list().some((fund) => textAt(fund, 'parent_fund') === id);
    if (hasChildren || (transactions.get(id) ?? []).length > 0) {
      throw badRequest('410873', `Request failed: fund ${id} has child funds or transactions`);
    }
    funds.remove(id);
    sendNoContent(res);
  };
}

function listTransactions({ funds, transactions }: FundBook): FundHandler {
  const fundIdNotValid = (id: string) => badRequest('401873', `Fund id not valid: ${id}`);
  return (req, res) => {
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
    const items = (transactions.get(id) ?? []).filter(
      (transaction) =>
        (kind === 'ALL' || textAt(transaction, 'transaction_type') === kind) &&
        matchesSearch(transaction, terms, TRANSACTION_SEARCH, transactionValues),
    );
    sendList(req, res, items, { itemKey: 'transaction' });
  };
}

function transactionValues(transaction: Body, field: string): (string | undefined)[] {
  return field === 'amount'
    ? [textAt(transaction, 'amount.sum')]
    : recordValues(transaction, field);
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
