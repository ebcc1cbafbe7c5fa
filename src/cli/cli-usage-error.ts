/**
 * The command is refused (exit 2): the command line is wrong — the message names the option or
 * argument at fault — or what it asks cannot run now (`code` says why, as the console's API does).
 */
export class CliUsageError extends Error {
  /** The refusal's machine name: `invalid_request` (the command line), `recovery_running`, … */
  readonly code: string;
  constructor(message: string, code = 'invalid_request') {
    super(message);
    this.name = 'CliUsageError';
    this.code = code;
  }
}
