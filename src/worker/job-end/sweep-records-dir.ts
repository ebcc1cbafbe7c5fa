import { sweepStaleTemporaryFiles } from '../../files/sweep-stale-temporary-files';
import type { Logger } from '../../logger';
import { errField } from '../../err-field';

/** Never sweep a temporary file touched more recently than this, whatever the idle timeout. */
const MIN_STALE_AFTER_MS = 10 * 60_000;

/**
 * At start-up: removes the `.part` files a killed run left in RECORDS_DIR. A live download writes
 * at least once per idle timeout (a silent body is abandoned), so a file untouched for twice that,
 * and at least 10 minutes, belongs to no live run — also of another worker sharing the directory.
 */
export async function sweepRecordsDir({
  recordsDir,
  idleTimeoutMs,
  logger,
}: {
  recordsDir: string;
  idleTimeoutMs: number;
  logger: Logger;
}): Promise<readonly string[]> {
  const staleAfterMs = Math.max(MIN_STALE_AFTER_MS, 2 * idleTimeoutMs);
  try {
    const removed = await sweepStaleTemporaryFiles(recordsDir, staleAfterMs);
    if (removed.length > 0) {
      logger.info({ count: removed.length, files: removed }, 'stale temporary files removed');
    }
    return removed;
  } catch (error) {
    logger.warn({ err: errField(error), recordsDir }, 'stale temporary files could not be swept');
    return [];
  }
}
