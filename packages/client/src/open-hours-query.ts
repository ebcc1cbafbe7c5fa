import { z } from 'zod';
import { addDays, addMonths, formatIsoDate, parseCalendarDate, utcToday } from './calendar-date';
import { isoDate } from './query-params';

/** spec §4.2 "one month of days", counted as 31 days with both ends included. */
const MAX_DAYS = 31;

/** Supplies "now"; the table passes `() => new Date()`, tests a fixed instant. */
export type Clock = () => Date;

/**
 * Query of `GET /conf/libraries/{libraryCode}/open-hours` (spec §4.2, §8), checked against the
 * clock at parse time. The rules apply to the range the server will use, defaults included:
 * `from` defaults to today, `to` to `from` plus one week (§4.2 parameter table).
 *
 * - rule 1 "at most one month of days": at most 31 days counting both ends, that is
 *   `to` ≤ `from` + 30 days, whatever the months. The sandbox counts the same way
 *   (packages/sandbox/src/areas/org-units.ts); a calendar-month reading would allow 32 days from
 *   the 1st of a 31-day month and only 29 from February 1st.
 * - rule 2 "between one year in the past and three years ahead": both dates lie in
 *   [today − 1 year, today + 3 years], bounds included, today being the UTC date of the clock.
 * - `to` before `from` is refused as well: such a request covers no day at all.
 */
export function openHoursQuery(clock: Clock) {
  return z.strictObject({ from: isoDate, to: isoDate }).superRefine((query, ctx) => {
    const today = utcToday(clock());
    const earliest = addMonths(today, -12);
    const latest = addMonths(today, 36);
    const from = query.from === undefined ? today : date(query.from);
    const to = query.to === undefined ? addDays(from, 7) : date(query.to);
    const fromText = query.from === undefined ? 'from (default today)' : 'from';

    const window = `between one year before and three years after today (${formatIsoDate(earliest)} to ${formatIsoDate(latest)})`;
    // spec §4.2 open-hours rule 2
    if (query.from !== undefined && (from < earliest || from > latest)) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: `must lie ${window}` });
    }
    if (query.to !== undefined && (to < earliest || to > latest)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `must lie ${window}` });
    } else if (query.to === undefined && to > latest) {
      ctx.addIssue({
        code: 'custom',
        path: ['from'],
        message: `must leave the default to (from plus one week) ${window}`,
      });
    }
    if (to < from) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `must not be before ${fromText}` });
    } else if (to > addDays(from, MAX_DAYS - 1)) {
      // spec §4.2 open-hours rule 1, §8 open hours range
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `must be at most ${String(MAX_DAYS - 1)} days after ${fromText}: one request covers at most one month of days (${String(MAX_DAYS)} counting both ends)`,
      });
    }
  });
}

/** The format check has already passed when a refinement runs. */
function date(text: string): Date {
  const parsed = parseCalendarDate(text, 'YYYY-MM-DD');
  if (parsed === undefined) throw new Error(`unchecked date reached the open-hours rules`);
  return parsed;
}
