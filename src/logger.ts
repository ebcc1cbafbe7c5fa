import pino from 'pino';
import type { Logger, LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino blanks before a line is written. Secrets must never reach a log line (CONVENTIONS 7):
 * the signature header, the webhook secrets, the API key in any object that carries one. URLs that
 * carry `apikey=` are redacted where they are built (svc-client/redact-url.ts), since pino's redact
 * works on paths, not on string contents.
 */
export const REDACT_PATHS = [
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
  'ADMIN_TOKEN',
];

export interface CreateLoggerOptions {
  level: LoggerOptions['level'];
  name: string;
  destination?: pino.DestinationStream;
  /** Paths blanked besides REDACT_PATHS, for a process with secrets of its own (the sandbox). */
  redact?: readonly string[];
}

/** JSON lines to stdout (or the given destination); redaction set once here. */
export function createLogger({
  level,
  name,
  destination,
  redact = [],
}: CreateLoggerOptions): Logger {
  const options: LoggerOptions = {
    level: level ?? 'info',
    name,
    redact: { paths: [...REDACT_PATHS, ...redact], censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
