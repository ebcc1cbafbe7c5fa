import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger';
import { openHistoryDatabase } from './open-history-database';
import type { SqlExecutor } from './sql-executor';
import { errField } from '../err-field';

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
  let warned = false;
  while (!signal.aborted) {
    try {
      const db = await openHistoryDatabase({ url: options.url, schema: options.schema });
      if (warned && db !== undefined)
        logger.info({ key: 'DATABASE_URL' }, 'history database connected');
      if (db === undefined || !signal.aborted) return db;
      await db.close();
      return undefined;
    } catch (error) {
      // Said once, naming the key; the retries after it are quiet until the database answers.
      if (!warned) warnAway(logger, error, waitMs);
      warned = true;
    }
    await sleep(waitMs, undefined, { signal }).catch(() => undefined);
    waitMs = Math.min(waitMs * 2, MAX_WAIT_MS);
  }
  return undefined;
}

const MAX_WAIT_MS = 60_000;

function warnAway(logger: Logger, error: unknown, firstWaitMs: number): void {
  const reason = error instanceof Error ? error.message : String(error);
  const retry = { retryFirstSeconds: firstWaitMs / 1000, retryMaxSeconds: MAX_WAIT_MS / 1000 };
  logger.warn(
    { key: 'DATABASE_URL', reason, err: errField(error), ...retry },
    'history database not reachable: records wait in Redis, retrying',
  );
}
