import { badRequest } from '../sandbox-error';

/** `req.query` as express 5 hands it over: strings, or arrays for a repeated parameter. */
export type Query = Readonly<Record<string, unknown>>;

/** The parameter's text; undefined when absent or empty. A repeated parameter is refused with `code`. */
export function textParam(query: Query, name: string, code: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw badRequest(code, `Parameter ${name} is given more than once`);
  const text = raw.trim();
  return text === '' ? undefined : text;
}

/** One of `values` (matched without regard to case, answered in the spec's spelling), else `code`. */
export function enumParam<T extends string>(
  query: Query,
  name: string,
  values: readonly T[],
  fallback: T,
  code: string,
): T {
  const text = textParam(query, name, code);
  if (text === undefined) return fallback;
  return enumValue(text, name, values, code);
}

export function enumValue<T extends string>(
  text: string,
  name: string,
  values: readonly T[],
  code: string,
): T {
  const found = values.find((value) => value.toLowerCase() === text.toLowerCase());
  if (found === undefined) {
    throw badRequest(code, `Invalid value for ${name}: ${text} (valid: ${values.join(', ')})`);
  }
  return found;
}

export type DayFormat = 'YYYY-MM-DD' | 'YYYYMMDD';

/** A calendar day at 00:00 UTC; undefined for text that is not a real day in `format`. */
export function parseDay(text: string, format: DayFormat = 'YYYY-MM-DD'): Date | undefined {
  const match =
    format === 'YYYY-MM-DD'
      ? /^(\d{4})-(\d{2})-(\d{2})Z?$/.exec(text)
      : /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real ? date : undefined;
}

export function dateParam(
  query: Query,
  name: string,
  code: string,
  format: DayFormat = 'YYYY-MM-DD',
): Date | undefined {
  const text = textParam(query, name, code);
  if (text === undefined) return undefined;
  const day = parseDay(text, format);
  if (day === undefined) throw badRequest(code, `Invalid date for ${name}: ${text} (${format})`);
  return day;
}

/** `2024-11-06Z`, the platform's day format in bodies. */
export function dayText(date: Date): string {
  return `${date.toISOString().slice(0, 10)}Z`;
}

/** 00:00 UTC of the given instant's day. */
export function startOfDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}

/** Whole years later (earlier when negative); February 29 becomes February 28, as in the client. */
export function addYears(date: Date, years: number): Date {
  const year = date.getUTCFullYear() + years;
  const month = date.getUTCMonth();
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const moved = new Date(date.getTime());
  moved.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
  return moved;
}
