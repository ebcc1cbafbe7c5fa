/** The command line itself is wrong (exit 2): the message names the option or argument at fault. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}
