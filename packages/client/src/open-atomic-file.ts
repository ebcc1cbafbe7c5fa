import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { temporaryFileName } from './temporary-file-name';

export interface AtomicFile {
  /** The temporary file being written (beside the target). */
  readonly temporary: string;
  /** Write here; it is flushed to disk (fsync) when it closes. */
  readonly stream: WriteStream;
  /** After the stream has finished: renames the temporary file over the target, durably. */
  commit(): Promise<void>;
  /** Removes the temporary file (after a failure). */
  discard(): Promise<void>;
}

/**
 * A file that appears whole or not at all. The bytes go to a temporary file of its own (exclusive
 * create, `wx`: an existing name is an error, never shared), flushed to disk on close, then renamed
 * over the target — atomic on one file system — and the directory is flushed so the rename itself
 * survives a power loss (rename(2) alone only orders it in memory).
 */
export function openAtomicFile(target: string, tag?: string): AtomicFile {
  const temporary = temporaryFileName(target, tag);
  const stream = createWriteStream(temporary, { flags: 'wx', flush: true });
  return {
    temporary,
    stream,
    commit: async () => {
      await rename(temporary, target);
      await syncDirectory(dirname(target));
    },
    discard: () => rm(temporary, { force: true }),
  };
}

/** Platforms that cannot open a directory for fsync (Windows) have nothing to flush this way. */
const NO_DIRECTORY_SYNC = new Set(['EISDIR', 'EPERM', 'EINVAL']);

async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !NO_DIRECTORY_SYNC.has(code)) throw error;
  } finally {
    await handle?.close();
  }
}
