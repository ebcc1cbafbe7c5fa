import { closeSync, openSync, readSync } from 'node:fs';
import { StartupFileError } from './startup-file-error';
import { yamlTreeWithLines } from './yaml-tree-with-lines';

/**
 * The most bytes a start-up file (routes, institutions, tokens, roles, expected events) may have:
 * far above any real one, and small enough that `/dev/zero` or a mistaken path to a disk image
 * fails at once instead of filling memory.
 */
const STARTUP_FILE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * A start-up file's text, read up to `maxBytes` (one byte past it refuses the file, whatever its
 * size says: a device or a pipe has none); an unreadable or too large file is one problem naming
 * the path and the code or the cap. `file` names the file in the error (`routes file`).
 */
export function readFileText(
  path: string,
  file: string,
  maxBytes: number = STARTUP_FILE_MAX_BYTES,
): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw unreadable(error, path, file);
  }
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let size = 0;
    for (;;) {
      const read = readSync(fd, buffer, size, buffer.length - size, null);
      if (read === 0) break;
      size += read;
      if (size > maxBytes) {
        throw new StartupFileError(
          file,
          [`larger than ${String(maxBytes)} bytes, the cap of a start-up file`],
          path,
        );
      }
    }
    return buffer.subarray(0, size).toString('utf8');
  } catch (error) {
    if (error instanceof StartupFileError) throw error;
    throw unreadable(error, path, file);
  } finally {
    closeSync(fd);
  }
}

function unreadable(error: unknown, path: string, file: string): StartupFileError {
  const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
  return new StartupFileError(file, [`cannot be read (${code})`], path);
}

/** A start-up file's YAML as a plain tree (yaml-tree-with-lines.ts, where its errors are made). */
export function yamlTreeOf(text: string, file: string): unknown {
  return yamlTreeWithLines(text, file).tree;
}
