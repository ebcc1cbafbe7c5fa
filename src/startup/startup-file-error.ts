/**
 * A start-up file (ROUTES_FILE, INSTITUTIONS_FILE) cannot be used: the process does not start.
 * Each problem names the entry (a route, an institution) and the field, or the environment
 * variable, never a value: values may hold substituted secrets. The file's path is named too once
 * known (namingPath): a deployer with several copies of a file sees which one is wrong.
 */
export class StartupFileError extends Error {
  /** The file in words, as the message starts: `routes file`, `institutions file`. */
  readonly file: string;
  readonly problems: readonly string[];
  /** Where the file was read from; undefined for text parsed without one (parseRoutesFile). */
  readonly path: string | undefined;
  constructor(file: string, problems: readonly string[], path?: string) {
    super(`invalid ${file}${path === undefined ? '' : ` ${path}`}: ${problems.join('; ')}`);
    this.name = 'StartupFileError';
    this.file = file;
    this.problems = problems;
    this.path = path;
  }
}

/** Reads a start-up file with `read`; a StartupFileError from it names `path` (once). */
export function namingPath<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof StartupFileError) || error.path !== undefined) throw error;
    throw new StartupFileError(error.file, error.problems, path);
  }
}
