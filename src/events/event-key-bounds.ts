/**
 * The longest event key (the event `id`, the institution and event codes) in UTF-8 bytes. The
 * platform's ids are digits (16 to 20 of them) and its codes short words; 255 bytes is room to
 * spare, is what an AMQP short string (a message id) carries, and stays far under the largest
 * key a PostgreSQL index takes (2,704 bytes).
 */
const EVENT_KEY_MAX_BYTES = 255;

/**
 * A control character (C0, DEL, C1: no key has one, and a header or a log cannot carry it) or a
 * lone surrogate (a JSON `\ud800` escape: no UTF-8 text, so no database or broker can store it).
 */
const UNFIT_CHARACTER = /[\p{Cc}\p{Cs}]/u;

/**
 * Why `value` cannot be an event key, or undefined when it can: the reason names the rule, never
 * the value (it goes into the 400 answer, the log and the rejected store).
 */
export function eventKeyProblem(value: string): string | undefined {
  // A UTF-16 unit is at most 3 bytes of UTF-8: only a value over a third of the limit is measured.
  if (value.length * 3 > EVENT_KEY_MAX_BYTES && Buffer.byteLength(value) > EVENT_KEY_MAX_BYTES) {
    return `longer than ${String(EVENT_KEY_MAX_BYTES)} bytes`;
  }
  if (UNFIT_CHARACTER.test(value)) return 'holds a control character or a lone surrogate';
  return undefined;
}
