import type { Logger } from 'pino';
import { errnoCode } from './errno-code';
import { messageOf } from './message-of';

/**
 * The `err` field of every log line (docs/logs.md): always an object, with the same three fields
 * whatever was thrown. `stack` only on a line written at debug.
 */
export interface ErrField {
  /** The error's class name (`Error`, `DeliveryError`, `ReplyError`); `NotAnError` for a thrown value that is none. */
  readonly type: string;
  /** Its machine code (`ECONNREFUSED`, `queue_unavailable`, `23505`), its cause's, or `unknown`. */
  readonly code: string;
  /** Its message with its cause's, cut at MAX_MESSAGE; never the text of a body (below). */
  readonly message: string;
  readonly stack?: string;
}

/** A message longer than this is cut: an error that quotes what it read cannot flood a line. */
const MAX_MESSAGE = 512;
const MAX_STACK = 4096;

/**
 * V8's JSON.parse messages quote the text around the fault (`Unexpected token 'x', "{"name": "An"…
 * is not valid JSON`), and a body may be a person's data: quoted text is left out of the message
 * of any SyntaxError.
 */
const QUOTED = /"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?/g;

export interface ErrFieldOptions {
  /** The stack too: for a line written at debug only. */
  readonly stack?: boolean;
  /** Applied to the message (a destination's secrets, create-secret-redactor.ts). */
  readonly redact?: (text: string) => string;
}

/**
 * `err` of a log line from anything thrown: `{ type, code, message }` (and `stack` when asked, for
 * a debug line). Duck-typed, as messageOf is: errors may come from another realm.
 */
export function errField(error: unknown, options: ErrFieldOptions = {}): ErrField {
  const { stack = false, redact = (text: string) => text } = options;
  const isObject = typeof error === 'object' && error !== null;
  const name = isObject ? (error as { name?: unknown }).name : undefined;
  const type = typeof name === 'string' && name !== '' ? name : isObject ? 'Error' : 'NotAnError';
  const code = codeOf(error);
  let message = messageOf(error);
  if (type === 'SyntaxError') message = message.replace(QUOTED, '"…"');
  // An AggregateError (a refused dual-stack connect) has no message of its own: its code says it.
  const field = { type, code, message: clip(redact(message === '' ? code : message), MAX_MESSAGE) };
  const trace = isObject ? (error as { stack?: unknown }).stack : undefined;
  return stack && typeof trace === 'string' ? { ...field, stack: clip(trace, MAX_STACK) } : field;
}

/** The error's own code (a string, or a number such as an HTTP status), else its cause's. */
function codeOf(error: unknown): string {
  const own = errnoCode(error) ?? numericCode(error) ?? redisReplyCode(error);
  if (own !== undefined) return own;
  const cause =
    typeof error === 'object' && error !== null ? (error as { cause?: unknown }).cause : undefined;
  return (cause === undefined ? undefined : (errnoCode(cause) ?? numericCode(cause))) ?? 'unknown';
}

function numericCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = error as { code?: unknown };
  return typeof code === 'number' ? String(code) : undefined;
}

/** A Redis error reply's prefix (`WRONGTYPE`, `READONLY`, `OOM`): ioredis' ReplyError has no code. */
function redisReplyCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, message } = error as { name?: unknown; message?: unknown };
  if (name !== 'ReplyError' || typeof message !== 'string') return undefined;
  return /^([A-Z]+)\b/.exec(message)?.[1];
}

/** Whether a value is already an ErrField (a line's `err` given twice through the serializer). */
export function isErrField(value: unknown): value is ErrField {
  if (typeof value !== 'object' || value === null || value instanceof Error) return false;
  const { type, code, message } = value as Record<string, unknown>;
  return typeof type === 'string' && typeof code === 'string' && typeof message === 'string';
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${String(text.length)} chars)` : text;
}

/**
 * The stack of an error a line above said (`err` without it), on a line of its own at debug: a
 * defect's stack is there when debug is on, and no line at info or warn carries one.
 */
export function stackAtDebug(
  logger: Pick<Logger, 'debug' | 'isLevelEnabled'>,
  fields: Readonly<Record<string, unknown>>,
  error: unknown,
  msg: string,
): void {
  if (logger.isLevelEnabled('debug')) {
    logger.debug({ ...fields, err: errField(error, { stack: true }) }, `${msg}: the stack`);
  }
}
