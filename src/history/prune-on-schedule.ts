import type { Logger } from '../logger';
import { pruneHistory } from './prune-history';
import type { SqlExecutor } from './sql-executor';
import { errField } from '../err-field';

/** Retention's days: every event's, and the shorter one of patron events. */
export interface RetentionDays {
  readonly days: number;
  readonly patronDays: number;
}

/**
 * Applies retention every `everyMs` (docs/history.md: hourly); a failed run is logged and the next
 * one tries again. The timer never keeps the process alive; the returned function stops it.
 */
export function pruneOnSchedule(
  db: SqlExecutor,
  retention: RetentionDays,
  everyMs: number,
  logger: Logger,
): () => void {
  const timer = setInterval(() => void pruneNow(db, retention, logger), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

async function pruneNow(db: SqlExecutor, retention: RetentionDays, logger: Logger): Promise<void> {
  try {
    const result = await pruneHistory(db, retention);
    logger.info({ dropped: result.dropped.length }, 'history retention applied');
  } catch (error) {
    logger.warn({ err: errField(error) }, 'history retention failed');
  }
}
