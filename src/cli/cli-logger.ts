import { createLogger } from '../logger';
import type { Logger } from '../logger';
import type { CliIo } from './cli-io';

/** The command's logger: the one bin/cli.ts gives, else one that writes nothing. */
export function cliLogger(io: CliIo): Logger {
  return io.logger ?? createLogger({ level: 'silent', name: 'cli' });
}
