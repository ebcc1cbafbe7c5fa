/**
 * The institutions file cannot be used: the process does not start. Each problem names the
 * institution (by its code, or its position) and the field, never a value: values hold secrets.
 */
export class InstitutionsFileError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid institutions file: ${problems.join('; ')}`);
    this.name = 'InstitutionsFileError';
    this.problems = problems;
  }
}
