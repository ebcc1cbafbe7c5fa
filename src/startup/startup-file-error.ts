/**
 * A start-up file (ROUTES_FILE, INSTITUTIONS_FILE) cannot be used: the process does not start.
 * Each problem names the entry (a route, an institution) and the field, or the environment
 * variable, never a value: values may hold substituted secrets.
 */
export class StartupFileError extends Error {
  /** The file in words, as the message starts: `routes file`, `institutions file`. */
  readonly file: string;
  readonly problems: readonly string[];
  constructor(file: string, problems: readonly string[]) {
    super(`invalid ${file}: ${problems.join('; ')}`);
    this.name = 'StartupFileError';
    this.file = file;
    this.problems = problems;
  }
}
