import { closeSync, constants, fsyncSync, openSync } from 'node:fs';

/** Makes the directory's entries (a file created or removed) durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
