import { InvalidEventError } from './invalid-event-error';
import { jsonSyntaxErrorOf } from './json-syntax-error';
import { MAX_NESTING_DEPTH } from './max-nesting-depth';
import { scanJsonText } from './scan-json-text';
import type { JsonTextFacts } from './scan-json-text';

/**
 * An integer of 16 digits or more in a value's place: a double may alter it. Also matches inside
 * strings now and then, which costs one scan and changes nothing.
 */
const LONG_INTEGER = /[:,[]\s*-?\d{16}/;

/**
 * JSON text → value. The text was decoded as strict UTF-8 by the caller. Nesting is bounded before
 * JSON.parse, and number tokens a double would alter are read as their exact text: the root `id`
 * (spec §6.2: a string; a number there is its digits) and any integer beyond 2^53, so two events
 * never share an id (`9007199254740993` and `9007199254740992` are two ids). The scan that finds
 * them runs only when a cheap test says it may be needed: most deliveries are parsed once, as is.
 */
export function parseJsonEvent(text: string): unknown {
  let facts: JsonTextFacts | undefined;
  if (openings(text) > MAX_NESTING_DEPTH || LONG_INTEGER.test(text)) facts = scanned(text);
  let value = parse(text, facts);
  if (facts === undefined && hasNumericId(value)) value = parse(text, scanned(text));
  return value;
}

function scanned(text: string): JsonTextFacts {
  const facts = scanJsonText(text, MAX_NESTING_DEPTH);
  if (facts.tooDeep) {
    throw new InvalidEventError(`body is nested deeper than ${MAX_NESTING_DEPTH} levels`);
  }
  return facts;
}

/** How many `{` and `[` the text holds, strings included, counting no further than the limit. */
function openings(text: string): number {
  let count = 0;
  for (
    let i = text.indexOf('{');
    i >= 0 && count <= MAX_NESTING_DEPTH;
    i = text.indexOf('{', i + 1)
  ) {
    count += 1;
  }
  for (
    let i = text.indexOf('[');
    i >= 0 && count <= MAX_NESTING_DEPTH;
    i = text.indexOf('[', i + 1)
  ) {
    count += 1;
  }
  return count;
}

function hasNumericId(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as Record<string, unknown>).id === 'number'
  );
}

function parse(text: string, facts: JsonTextFacts | undefined): unknown {
  const exact = facts?.exact ?? [];
  try {
    return JSON.parse(exact.length === 0 ? text : quoted(text, exact)) as unknown;
  } catch {
    // Said of the text as sent (quoting moves the offsets), and never in V8's words: its
    // message quotes the text around the fault, which may be a person's data.
    const fault = jsonSyntaxErrorOf(text);
    throw new InvalidEventError(
      fault === undefined
        ? 'body is not valid JSON'
        : `body is not valid JSON: ${fault.kind} at line ${String(fault.line)}, column ${String(fault.column)} (character ${String(fault.position)})`,
    );
  }
}

/** The text with each [start, end) token of `spans` put in quotes, so JSON.parse keeps its text. */
function quoted(text: string, spans: readonly number[]): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < spans.length; i += 2) {
    const start = spans[i] ?? 0;
    const end = spans[i + 1] ?? start;
    out += `${text.slice(from, start)}"${text.slice(start, end)}"`;
    from = end;
  }
  return out + text.slice(from);
}
