import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger';
import { openHistoryDatabase } from './open-history-database';
import type { SqlExecutor } from './sql-executor';

/**
 * Opens (and migrates) the history's database, again with backoff (`firstWaitMs` doubling up to a
 * minute) until it answers or `signal` aborts: then undefined, and nothing is left open.
 */
export async function openHistoryUntilStopped(options: {
  url: string;
  schema: string;
  firstWaitMs: number;
  logger: Logger;
  signal: AbortSignal;
}): Promise<SqlExecutor | undefined> {
  const { logger, signal } = options;
  let waitMs = options.firstWaitMs;
  while (!signal.aborted) {
    try {
      const db = await openHistoryDatabase({ url: options.url, schema: options.schema });
      if (db === undefined || !signal.aborted) return db;
      await db.close();
      return undefined;
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error), retryInMs: waitMs },
        'history database not reachable: records wait in Redis',
      );
    }
    await sleep(waitMs, undefined, { signal }).catch(() => undefined);
    waitMs = Math.min(waitMs * 2, 60_000);
  }
  return undefined;
}
