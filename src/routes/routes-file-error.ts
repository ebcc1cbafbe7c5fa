/**
 * The routes file cannot be used: the worker does not start. Each problem names the route and the
 * field (or the environment variable), never a value, since values may hold substituted secrets.
 */
export class RoutesFileError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid routes file: ${problems.join('; ')}`);
    this.name = 'RoutesFileError';
    this.problems = problems;
  }
}
