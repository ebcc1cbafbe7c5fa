import { dayText } from './query-rules';

/** A fiscal year, July to June, as the funds and fiscal-periods operations name it. */
export interface FiscalPeriod {
  readonly id: string;
  readonly description: string;
  readonly start: Date;
  readonly end: Date;
  readonly current: boolean;
}

/**
 * The two fiscal years before the current one, the current one and the next, derived from the
 * clock alone so that the funds and currencies-fiscal areas agree on ids without sharing state.
 */
export function fiscalPeriodsAround(now: Date): FiscalPeriod[] {
  const currentEnd = now.getUTCMonth() >= 6 ? now.getUTCFullYear() + 1 : now.getUTCFullYear();
  return [currentEnd - 2, currentEnd - 1, currentEnd, currentEnd + 1].map((endYear) => ({
    id: `${String(endYear - 1)}${String(endYear)}`,
    description: `FY ${String(endYear - 1)}-${String(endYear)}`,
    start: new Date(Date.UTC(endYear - 1, 6, 1)),
    end: new Date(Date.UTC(endYear, 5, 30)),
    current: endYear === currentEnd,
  }));
}

export function fiscalPeriodBody(period: FiscalPeriod): Record<string, unknown> {
  return {
    id: period.id,
    description: period.description,
    start_date: dayText(period.start),
    end_date: dayText(period.end),
    current: period.current,
  };
}
