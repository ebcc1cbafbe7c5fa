import { InvalidEventError } from './invalid-event-error';
import { MAX_NESTING_DEPTH } from './max-nesting-depth';
import { scanJsonText } from './scan-json-text';

/**
 * JSON text → value. The text was decoded as strict UTF-8 by the caller. Nesting is bounded before
 * JSON.parse, and number tokens a double would alter are read as their exact text: the root `id`
 * (spec §6.2: a string; a number there is its digits) and any integer beyond 2^53, so two events
 * never share an id (`9007199254740993` and `9007199254740992` are two ids).
 */
export function parseJsonEvent(text: string): unknown {
  const facts = scanJsonText(text, MAX_NESTING_DEPTH);
  if (facts.tooDeep) {
    throw new InvalidEventError(`body is nested deeper than ${MAX_NESTING_DEPTH} levels`);
  }
  try {
    return JSON.parse(facts.exact.length === 0 ? text : quoted(text, facts.exact)) as unknown;
  } catch (error) {
    // The message of the text as sent: quoting moves the offsets a parser names.
    let reason = error instanceof Error ? error.message : String(error);
    try {
      JSON.parse(text);
    } catch (original) {
      reason = original instanceof Error ? original.message : String(original);
    }
    throw new InvalidEventError(`body is not valid JSON: ${reason}`);
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
