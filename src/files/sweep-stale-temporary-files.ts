import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMPORARY_FILE_PATTERN } from '@svcws/client';

/**
 * Removes temporary files (openAtomicFile's `.part`) under `root` not written to for `staleAfterMs`:
 * what a killed run left behind. A live writer touches its file far more often (a download silent
 * longer than its idle timeout is abandoned), so several processes sharing `root` can each sweep
 * at start-up without removing a file another one is writing. Returns the removed paths.
 */
export async function sweepStaleTemporaryFiles(
  root: string,
  staleAfterMs: number,
  now: () => number = Date.now,
): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(root, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !TEMPORARY_FILE_PATTERN.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined || now() - info.mtimeMs < staleAfterMs) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  return removed;
}
