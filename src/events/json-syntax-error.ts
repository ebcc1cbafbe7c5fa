/** Where JSON text stops being JSON, and what kind of fault it is there: never its bytes. */
export interface JsonSyntaxError {
  /** A fixed phrase: `unexpected character`, `unterminated string`, … */
  readonly kind: string;
  /** Offset in the text (UTF-16 units), and the same as line and column (both from 1). */
  readonly position: number;
  readonly line: number;
  readonly column: number;
}

class Stop {
  constructor(
    readonly kind: string,
    readonly position: number,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const SPACE = /[ \t\n\r]*/y;

/**
 * The first syntax fault of JSON text (RFC 8259), or undefined when there is none. V8's own
 * message quotes the text around the fault, and a body's text may be a person's data: this says
 * only where and what. Run once a parse has failed; nesting was bounded before (MAX_NESTING_DEPTH).
 */
export function jsonSyntaxErrorOf(text: string): JsonSyntaxError | undefined {
  try {
    const end = skipSpace(text, readValue(text, skipSpace(text, 0)));
    if (end < text.length) throw new Stop('content after the JSON value', end);
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    const before = text.slice(0, error.position);
    const lineStart = before.lastIndexOf('\n') + 1;
    return {
      kind: error.kind,
      position: error.position,
      line: before.split('\n').length,
      column: error.position - lineStart + 1,
    };
  }
}

/** Reads one value at `at` (spaces skipped), returning the offset just past it. */
function readValue(text: string, at: number): number {
  const char = text[at];
  if (char === undefined) throw new Stop('unexpected end of the body', at);
  if (char === '{') return readMembers(text, at + 1, '}', true);
  if (char === '[') return readMembers(text, at + 1, ']', false);
  if (char === '"') return readString(text, at);
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, at)) return at + literal.length;
  }
  NUMBER.lastIndex = at;
  if (NUMBER.test(text)) return NUMBER.lastIndex;
  throw new Stop('unexpected character', at);
}

/** The members of an object (`key: value`) or the items of an array, up to `close`. */
function readMembers(text: string, from: number, close: string, keyed: boolean): number {
  let at = skipSpace(text, from);
  if (text[at] === close) return at + 1;
  for (;;) {
    if (keyed) {
      if (text[at] !== '"') throw unexpected(text, at);
      at = skipSpace(text, readString(text, at));
      if (text[at] !== ':') throw unexpected(text, at);
      at = skipSpace(text, at + 1);
    }
    at = skipSpace(text, readValue(text, at));
    if (text[at] === close) return at + 1;
    if (text[at] !== ',') throw unexpected(text, at);
    at = skipSpace(text, at + 1);
  }
}

function readString(text: string, from: number): number {
  let at = from + 1;
  for (;;) {
    const code = text.charCodeAt(at);
    if (Number.isNaN(code)) throw new Stop('unterminated string', from);
    if (code === 0x22) return at + 1;
    if (code < 0x20) throw new Stop('control character in a string', at);
    if (code === 0x5c) {
      ESCAPE.lastIndex = at;
      if (!ESCAPE.test(text)) throw new Stop('invalid escape in a string', at);
      at = ESCAPE.lastIndex;
    } else {
      at += 1;
    }
  }
}

function skipSpace(text: string, at: number): number {
  SPACE.lastIndex = at;
  SPACE.test(text);
  return SPACE.lastIndex;
}

function unexpected(text: string, at: number): Stop {
  return new Stop(at >= text.length ? 'unexpected end of the body' : 'unexpected character', at);
}
