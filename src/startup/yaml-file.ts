import { closeSync, openSync, readSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { StartupFileError } from './startup-file-error';

/**
 * The most bytes a start-up file (routes, institutions, tokens, roles, expected events) may have:
 * far above any real one, and small enough that `/dev/zero` or a mistaken path to a disk image
 * fails at once instead of filling memory.
 */
const STARTUP_FILE_MAX_BYTES = 4 * 1024 * 1024;

/** yaml's own default: an alias bomb (billion laughs) fails before it expands. */
const MAX_ALIAS_COUNT = 100;

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

/**
 * YAML (JSON is YAML too) → a plain tree; each syntax error is a problem of its own, naming the
 * line and column yaml points at, and so is an alias bomb (more than 100 alias expansions,
 * yaml's `maxAliasCount`): both name the file.
 */
export function yamlTreeOf(text: string, file: string): unknown {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    // The first line of yaml's message only: the rest quotes the source, which may hold a secret.
    throw new StartupFileError(
      file,
      // yaml's first line ends "at line L, column C:" where it knows the place.
      document.errors.map(
        (error) => `YAML: ${error.message.split('\n')[0]?.replace(/:$/, '') ?? error.code}`,
      ),
    );
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : undefined;
    throw new StartupFileError(file, [`YAML: ${message ?? 'cannot be read'}`]);
  }
}
