/**
 * Calendar dates as the service writes them in query parameters (spec §2, §4): `YYYY-MM-DD`
 * everywhere, `YYYYMMDD` for the currencies' `exchange_date` (§4.9). Dates are whole days with no
 * time zone; they are held as UTC midnights so arithmetic never crosses a daylight-saving change.
 */

export type DateFormat = 'YYYY-MM-DD' | 'YYYYMMDD';

const patterns: Readonly<Record<DateFormat, RegExp>> = {
  'YYYY-MM-DD': /^(\d{4})-(\d{2})-(\d{2})$/,
  YYYYMMDD: /^(\d{4})(\d{2})(\d{2})$/,
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC midnight of a real calendar date written in `format`, or undefined (`2024-02-30`). */
export function parseCalendarDate(text: string, format: DateFormat): Date | undefined {
  const match = patterns[format].exec(text);
  if (match === null) return undefined;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month - 1)) return undefined;
  return utcDate(year, month - 1, day);
}

/** Today as a UTC calendar date: the service's "today" has no stated time zone, UTC is ours. */
export function utcToday(now: Date): Date {
  return utcDate(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

/**
 * Calendar months later (or earlier, when negative), the day clamped to the target month's last
 * day: 2024-01-31 + 1 month = 2024-02-29, 2024-02-29 - 12 months = 2023-02-28.
 */
export function addMonths(date: Date, months: number): Date {
  const target = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(target / 12);
  const month = target - year * 12;
  return utcDate(year, month, Math.min(date.getUTCDate(), daysInMonth(year, month)));
}

export function formatIsoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function utcDate(year: number, monthIndex: number, day: number): Date {
  const date = new Date(Date.UTC(year, monthIndex, day));
  // Date.UTC maps years 0-99 to 1900-1999; set the year again so 0001-01-01 stays in year 1.
  date.setUTCFullYear(year, monthIndex, day);
  return date;
}

function daysInMonth(year: number, monthIndex: number): number {
  return utcDate(year, monthIndex + 1, 0).getUTCDate();
}
