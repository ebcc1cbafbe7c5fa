import type { Request, Response } from 'express';
import { sendBody, sendList } from '../respond';
import type { SandboxArea } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code } from './body-fields';
import { fiscalPeriodBody, fiscalPeriodsAround } from './fiscal-periods';
import { dateParam, dayText, enumParam, enumValue, startOfDay, textParam } from './query-rules';
import { CURRENCIES, CURRENCY_CODES } from './seed-values';

/** Currencies the institution works in (mode=Subset). */
const SUBSET = ['USD', 'EUR', 'GBP'];
/** Rates are known from this day to today; outside, 60348. */
const FIRST_RATE_DAY = new Date(Date.UTC(2015, 0, 1));

/** Currencies with exchange rates, and fiscal periods: spec §4.9. */
export const currenciesFiscalArea: SandboxArea = (router, ctx) => {
  const valueOn = currencyValues(ctx.random);

  router.get('/acq/currencies', (req, res) => {
    const mode = enumParam(req.query, 'mode', ['ALL', 'Subset', 'Ratio'], 'ALL', '401666');
    if (mode === 'Ratio') {
      sendRatio(req, res, valueOn, ctx.now);
      return;
    }
    const codes = mode === 'Subset' ? SUBSET : CURRENCY_CODES;
    const items = CURRENCIES.filter((currency) => codes.includes(currency.code)).map(
      (currency) => ({
        currency: code(currency.code, currency.name),
        active: SUBSET.includes(currency.code),
      }),
    );
    sendList(req, res, items, { itemKey: 'currency' });
  });

  router.get('/acq/fiscal-periods', (req, res) => {
    const mode = enumParam(req.query, 'mode', ['ALL', 'Current'], 'ALL', '401666');
    const periods = fiscalPeriodsAround(ctx.now()).filter(
      (period) => mode === 'ALL' || period.current,
    );
    if (periods.length === 0) throw badRequest('401873', 'No current fiscal period');
    sendList(req, res, periods.map(fiscalPeriodBody), { itemKey: 'fiscal_period', paged: false });
  });
};

/** A currency's value in USD on a day. */
type ValueOn = (currencyCode: string, day: Date) => number;

/** Each currency drifts around its base value along its own seeded phase. */
function currencyValues(random: () => number): ValueOn {
  const phases = new Map(CURRENCIES.map((currency) => [currency.code, random() * Math.PI * 2]));
  return (currencyCode, day) => {
    const base = CURRENCIES.find((currency) => currency.code === currencyCode)?.toBase ?? 1;
    if (currencyCode === 'USD') return 1;
    return (
      base *
      (1 + 0.04 * Math.sin(day.getTime() / 86_400_000 / 45 + (phases.get(currencyCode) ?? 0)))
    );
  };
}

/** mode=Ratio: the exchange rate of two currencies on a day between FIRST_RATE_DAY and today. */
function sendRatio(req: Request, res: Response, valueOn: ValueOn, now: () => Date): void {
  const currencyParam = (name: string): string => {
    const text = textParam(req.query, name, '40166410') ?? 'USD';
    return enumValue(text, name, CURRENCY_CODES, '40166410');
  };
  const source = currencyParam('source_currency');
  const target = currencyParam('target_currency');
  // spec §4.9: only exchange_date is required in Ratio mode.
  const day = dateParam(req.query, 'exchange_date', '401666', 'YYYYMMDD');
  if (day === undefined)
    throw badRequest('401666', 'Parameter not valid: exchange_date is required in Ratio mode');
  if (day < FIRST_RATE_DAY || day > startOfDay(now())) {
    throw badRequest('60348', `The exchange rate cannot be determined for ${dayText(day)}`);
  }
  const ratio = Number((valueOn(source, day) / valueOn(target, day)).toFixed(6));
  sendBody(
    req,
    res,
    {
      source_currency: code(source),
      target_currency: code(target),
      exchange_date: dayText(day),
      ratio,
    },
    { xmlRoot: 'exchange_rate' },
  );
}
