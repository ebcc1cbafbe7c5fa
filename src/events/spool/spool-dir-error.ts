/** What is wrong with the spool's directory or a file in it. */
export type SpoolDirProblem =
  | 'spool_dir_not_directory'
  | 'spool_dir_symlink'
  | 'spool_dir_not_owned'
  | 'spool_dir_mode'
  | 'spool_file_symlink'
  | 'spool_file_not_file';

/**
 * The spool refuses to start on a directory that others could read or write, or that is, or
 * holds, a symbolic link where a spool file belongs: it holds patron data in clear
 * (docs/privacy.md). The message names the path and what is wrong.
 */
export class SpoolDirError extends Error {
  constructor(
    readonly code: SpoolDirProblem,
    readonly path: string,
    problem: string,
  ) {
    super(`spool: ${path} ${problem}`);
    this.name = 'SpoolDirError';
  }
}
