import { z } from 'zod';
import { parseCalendarDate, type DateFormat } from './calendar-date';

/**
 * Shared pieces of the query schemas in `endpoints/`. Every piece carries its rule as the message
 * of each of its failures, so a violation reads "parameter limit: must be an integer from 0 to
 * 100" whatever went wrong. No piece has a default: a parameter the caller leaves out stays out of
 * the query and the server applies its own default (spec §2 common list parameters).
 */

/** Page size, spec §2 and §8: integer 0 to 100 (server default 10). */
const limit = z
  .int('must be an integer from 0 to 100')
  .min(0, 'must be an integer from 0 to 100')
  .max(100, 'must be an integer from 0 to 100')
  .optional();

/** Spec §2 and §8: integer, 0 returns from the first result (server default 0). */
const offset = z
  .int('must be an integer of 0 or more')
  .min(0, 'must be an integer of 0 or more')
  .optional();

/** The pair every list operation takes (spec §2); spread into a query object. */
export const listParams = { limit, offset };

/** A free string: code-table codes, ids, library codes (the spec gives no further rule). */
export const text = z.string('must be a string').optional();

/** `include_blank_terms` (spec §4.12): a boolean, sent as `true`/`false`. */
export const flag = z.boolean('must be true or false').optional();

/** A real calendar date in `format`: `2024-02-30` fails like `2024-2-3` does. */
export function calendarDate(format: DateFormat) {
  const rule = `must be a calendar date written ${format}`;
  return z
    .string(rule)
    .refine((value) => parseCalendarDate(value, format) !== undefined, rule)
    .optional();
}

/** YYYY-MM-DD (spec §4.2, §4.3, §4.5, §4.12). */
export const isoDate = calendarDate('YYYY-MM-DD');

/** One of `values`, letter case as the spec writes it (`FULL`/`brief`, `Ratio`, `BIB_MMS`). */
export function oneOf<const V extends readonly [string, ...string[]]>(values: V) {
  return z.enum(values, `must be one of ${values.join(', ')}`).optional();
}

/** A required `op` (spec §3): job and import-profile `run`, fund and invoice operations. */
export function requiredOp<const V extends readonly [string, ...string[]]>(values: V) {
  return z.enum(values, `is required and must be one of ${values.join(', ')}`);
}

/** The query of an operation that takes no parameters (the API key is added by `request()`). */
export const noQuery = z.strictObject({});
