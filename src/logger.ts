import pino from 'pino';
import type { Logger, LoggerOptions } from 'pino';
import { errField, isErrField } from './err-field';
import type { ErrField } from './err-field';

export type { Logger } from 'pino';

/**
 * Paths pino blanks before a line is written. Secrets must never reach a log line (logs are
 * shipped and kept where secrets must not be): the signature header, the webhook secrets, the API
 * key in any object that carries one. URLs that carry `apikey=` are redacted where they are built
 * (packages/client/src/redact-url.ts), since pino's redact works on paths, not on string contents.
 */
const REDACT_PATHS = [
  'req.headers["x-svc-signature"]',
  'req.headers.authorization',
  'headers["x-svc-signature"]',
  'signature',
  'secret',
  'secrets',
  'apiKey',
  'apikey',
  '*.secret',
  '*.apiKey',
  '*.apikey',
  'WEBHOOK_SECRET',
  'WEBHOOK_SECRET_PREVIOUS',
  'SVC_API_KEY',
  'HISTORY_KEY',
  'DATABASE_URL',
];

/** No line is longer than this: a payload that slips into one cannot flood. */
export const MAX_LINE_BYTES = 16 * 1024;

export interface CreateLoggerOptions {
  level: LoggerOptions['level'];
  name: string;
  destination?: pino.DestinationStream;
  /** Paths blanked besides REDACT_PATHS, for a process with secrets of its own (the sandbox). */
  redact?: readonly string[];
  /**
   * Stdout lines are gathered up to BUFFERED_BYTES, or BUFFERED_MS, before one write (the
   * listener: one line per delivery would otherwise be one write each). Flushed synchronously on
   * exit (pino registers it), so only a kill -9 can lose the last lines — never an event: a
   * delivery is answered 200 after its enqueue, not after its log line.
   */
  buffered?: boolean;
  /**
   * Fields added to every line: the active span's `trace_id` and `span_id` when tracing is on
   * (src/tracing/start-tracing.ts). Not given when off, so no line pays for a lookup.
   */
  mixin?: (() => Record<string, string>) | undefined;
}

const BUFFERED_BYTES = 4096;
const BUFFERED_MS = 200;

/** JSON lines to stdout (or the given destination); redaction set once here. */
export function createLogger({
  level,
  name,
  destination,
  redact = [],
  buffered = false,
  mixin,
}: CreateLoggerOptions): Logger {
  const options: LoggerOptions = {
    level: level ?? 'info',
    name,
    redact: { paths: [...REDACT_PATHS, ...redact], censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
    hooks: { streamWrite: capLine },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(mixin === undefined ? {} : { mixin }),
  };
  if (destination) return pino(options, destination);
  if (!buffered) return pino(options);
  const stdout = pino.destination({
    dest: process.stdout.fd,
    sync: false,
    minLength: BUFFERED_BYTES,
    periodicFlush: BUFFERED_MS,
  });
  return pino(options, stdout);
}

/**
 * A child of `logger` for lines whose fields are fixed where they are written and are none of the
 * paths REDACT_PATHS names (the delivery line: ids, outcome, status, sizes). With wildcard paths
 * (`*.secret`) pino walks every field of every line for them; for such a line that walk can find
 * nothing, and it runs on every delivery. Serializers, the line cap and the destination are the
 * parent's. A field that may hold an object or a secret belongs on `logger`, not here.
 */
export function withoutRedaction(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [], censor: '[redacted]' } });
}

/**
 * `err` (and `error`) of a line, whatever was given: the `{ type, code, message }` of errField
 * (src/err-field.ts), never a stack: a line written at debug passes `errField(error, { stack:
 * true })` itself, which is kept as it is. A caller's line gets the same shape either way.
 */
function serializeError(error: unknown): ErrField {
  return isErrField(error) ? error : errField(error);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${String(text.length)} chars)` : text;
}

/**
 * The last guard before a line is written: over MAX_LINE_BYTES, the line is rebuilt from its
 * short top-level fields, and the long ones are named, not written.
 */
function capLine(line: string): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: most lines are measured without encoding.
  if (line.length <= MAX_LINE_BYTES / 3 || Buffer.byteLength(line) <= MAX_LINE_BYTES) return line;
  let fields: Record<string, unknown> = {};
  try {
    fields = JSON.parse(line) as Record<string, unknown>;
  } catch {
    // Not JSON (cannot happen with pino's own serializer): keep nothing of it but its size.
  }
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const size = Buffer.byteLength(JSON.stringify(value) ?? '');
    if (size <= 1024) kept[key] = value;
    else if (key === 'msg' && typeof value === 'string') kept[key] = clip(value, 1024);
    else dropped.push(key);
  }
  kept.truncated = { bytes: Buffer.byteLength(line), dropped };
  const capped = JSON.stringify(kept);
  return Buffer.byteLength(capped) <= MAX_LINE_BYTES
    ? `${capped}\n`
    : `${JSON.stringify({ level: fields.level, time: fields.time, truncated: kept.truncated })}\n`;
}
