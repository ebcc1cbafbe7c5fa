import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import type { Logger } from '../../src/logger';

export interface CapturedLogger {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines: () => Record<string, unknown>[];
  /** Every line written so far, as written. */
  text: () => string;
}

/** A real pino logger (with the production redaction) writing into memory. */
export function captureLogger(level: 'info' | 'debug' | 'trace' = 'info'): CapturedLogger {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createLogger({ level, name: 'test', destination });
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
