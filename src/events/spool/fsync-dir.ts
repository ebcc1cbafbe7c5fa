import { closeSync, constants, fsyncSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY;

/** Makes the directory's entries (a file created or removed) durable (at start-up: blocking). */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The same, off the event loop: for the paths that run while deliveries are answered. A
 * directory's fsync may wait for the file system's journal, seconds on a busy disk, and every
 * answer would wait with it.
 */
export async function fsyncDirAsync(dir: string): Promise<void> {
  const handle = await open(dir, DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
