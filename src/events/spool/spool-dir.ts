import { lstatSync, mkdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { SpoolDirError } from './spool-dir-error';

/**
 * SPOOL_DIR made ready: created with mode 0700 when missing; else it must be a directory (not a
 * link to one) owned by this process's user with mode 0700, or the start is refused naming what
 * is wrong: the spool holds patron data in clear (docs/privacy.md), and a directory others can
 * write lets them plant links where the spool's files go.
 */
export function prepareSpoolDir(dir: string): void {
  let stats: Stats;
  try {
    stats = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    stats = lstatSync(dir);
  }
  if (stats.isSymbolicLink()) {
    throw new SpoolDirError(
      'spool_dir_symlink',
      dir,
      'is a symbolic link: name the directory itself',
    );
  }
  if (!stats.isDirectory())
    throw new SpoolDirError('spool_dir_not_directory', dir, 'is not a directory');
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw new SpoolDirError(
      'spool_dir_not_owned',
      dir,
      `is owned by uid ${String(stats.uid)}, not by this process's uid ${String(uid)}`,
    );
  }
  const mode = stats.mode & 0o777;
  if (mode !== 0o700) {
    throw new SpoolDirError(
      'spool_dir_mode',
      dir,
      `has mode 0${mode.toString(8)}, not 0700: only its owner may enter it (chmod 700 ${dir})`,
    );
  }
}
