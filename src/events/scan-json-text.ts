const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

export interface JsonTextFacts {
  /** The text nests deeper than the limit given (objects and arrays; the root is 1). */
  tooDeep: boolean;
  /**
   * Number tokens a double would alter, as [start, end) offsets in order: the root `id` when it is
   * a number (its digits are the id), and any integer beyond 2^53.
   */
  exact: number[];
}

/**
 * One pass over JSON text, without recursion and before JSON.parse: how deep it nests, and which
 * number tokens must keep their exact text. Strings are skipped with indexOf, so the cost is in
 * the structure, not the content. Malformed text is not judged here (JSON.parse does that).
 */
export function scanJsonText(text: string, maxDepth: number): JsonTextFacts {
  const exact: number[] = [];
  const length = text.length;
  let depth = 0;
  let lastRootStringIsId = false;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = endOfString(text, i);
      if (depth === 1) lastRootStringIsId = isIdKey(text, i, end);
      i = end + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_LIST) {
      depth += 1;
      if (depth > maxDepth) return { tooDeep: true, exact };
      i += 1;
    } else if (c === CLOSE_OBJECT || c === CLOSE_LIST) {
      depth -= 1;
      i += 1;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const end = endOfNumber(text, i);
      // In an object, the string before a value is its key: `"id": 3219…` is the root id.
      const wanted = (depth === 1 && lastRootStringIsId) || beyondDouble(text, i, end);
      if (wanted && isNumberValue(text, i, end)) exact.push(i, end);
      i = end;
    } else {
      i += 1;
    }
  }
  return { tooDeep: false, exact };
}

/** The offset of the quote that closes the string opened at `start` (or the text's length). */
function endOfString(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

function isIdKey(text: string, start: number, end: number): boolean {
  if (end - start === 3) {
    return text.charCodeAt(start + 1) === 0x69 && text.charCodeAt(start + 2) === 0x64;
  }
  // An escaped spelling ("\u0069d") is still the key `id` once JSON.parse reads it.
  const backslash = text.indexOf('\\', start + 1);
  if (backslash < 0 || backslash > end) return false;
  try {
    return JSON.parse(text.slice(start, end + 1)) === 'id';
  } catch {
    return false;
  }
}

function endOfNumber(text: string, start: number): number {
  let i = start + 1;
  for (; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    // digits, '.', 'e', 'E', '+', '-'
    if (!(
      (c >= ZERO && c <= NINE) ||
      c === 0x2e ||
      c === 0x65 ||
      c === 0x45 ||
      c === 0x2b ||
      c === MINUS
    ))
      break;
  }
  return i;
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A well-formed number in a value's place. Quoting anything else (`-`, `012`, a number used as a
 * key) would turn malformed JSON into valid JSON.
 */
function isNumberValue(text: string, start: number, end: number): boolean {
  if (!JSON_NUMBER.test(text.slice(start, end))) return false;
  let next = end;
  while (next < text.length && /\s/.test(text.charAt(next))) next += 1;
  return text.charAt(next) !== ':';
}

/** An integer token with more digits than a double holds exactly. */
function beyondDouble(text: string, start: number, end: number): boolean {
  const digits = end - start - (text.charCodeAt(start) === MINUS ? 1 : 0);
  if (digits < 16) return false;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x2e || c === 0x65 || c === 0x45) return false;
  }
  return !Number.isSafeInteger(Number(text.slice(start, end)));
}
