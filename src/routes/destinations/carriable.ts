import { unsendable } from '../delivery-error';
import type { DeliveryError } from '../delivery-error';

/** Why a protocol cannot carry a value as it is, or undefined when it can. Never quotes it. */
export type CarryRule = (value: string) => string | undefined;

/** One value a delivery would send: what the reason calls it, the value, and the rules it meets. */
export type CarriedValue = readonly [field: string, value: string, rules: readonly CarryRule[]];

/** At most `max` bytes of UTF-8 (measured only when it may be over: a UTF-16 unit is ≤ 3 bytes). */
export function atMostBytes(max: number): CarryRule {
  const problem = `is longer than ${max.toLocaleString('en')} bytes`;
  return (value) =>
    value.length * 3 > max && Buffer.byteLength(value) > max ? problem : undefined;
}

/** A header line ends at CR or LF, and a C string at NUL. */
export const noLineBreak: CarryRule = (value) =>
  /[\r\n\0]/.test(value) ? 'holds a CR, LF or NUL' : undefined;

/** Strings of MQTT and C-based brokers end at NUL. */
export const noNul: CarryRule = (value) => (value.includes('\0') ? 'holds a NUL' : undefined);

/** HTTP field values are bytes: fetch refuses a character it cannot write as one (above U+00FF). */
export const latin1: CarryRule = (value) =>
  /[^\0-\u00ff]/.test(value) ? 'holds a character above U+00FF' : undefined;

/**
 * The first value the protocol cannot carry, as a permanent DeliveryError naming its field (the
 * delivery can never succeed: not retried, not counted toward the circuit); undefined when all
 * fit. Checked before anything is sent, since some client libraries throw such a value from
 * inside their writers, out of reach of the delivery's own error handling.
 */
export function uncarriable(
  target: string,
  values: Iterable<CarriedValue>,
): DeliveryError | undefined {
  for (const [field, value, rules] of values) {
    for (const rule of rules) {
      const problem = rule(value);
      if (problem !== undefined) return unsendable(target, field, problem);
    }
  }
  return undefined;
}
