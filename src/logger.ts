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
  'SANDBOX_WEBHOOK_SECRET',
];

export interface CreateLoggerOptions {
  level: LoggerOptions['level'];
  name: string;
  destination?: pino.DestinationStream;
}

/** JSON lines to stdout (or the given destination); redaction set once here. */
export function createLogger({ level, name, destination }: CreateLoggerOptions): Logger {
  const options: LoggerOptions = {
    level: level ?? 'info',
    name,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
