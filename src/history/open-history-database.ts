import { migrateHistory } from './migrate-history';
import { openPgExecutor } from './pg-executor';
import { openPgliteExecutor } from './pglite-executor';
import type { SqlExecutor } from './sql-executor';

export interface OpenHistoryDatabaseOptions {
  /** DATABASE_URL: a PostgreSQL server (≥ 15). */
  readonly url?: string;
  /** PGlite in this process (the demo's default): nothing to install. Ignored with `url`. */
  readonly embedded?: boolean;
  /** PGlite's directory; in memory without one. */
  readonly dataDir?: string;
  /** HISTORY_SCHEMA. */
  readonly schema?: string;
  /** Bring the schema to the newest version before resolving (start-up); on by default. */
  readonly migrate?: boolean;
}

/**
 * Opens the history's database — a server with `url`, PGlite with `embedded` — and migrates it.
 * Resolves undefined when neither is asked for: history is off.
 */
export async function openHistoryDatabase(
  options: OpenHistoryDatabaseOptions,
): Promise<SqlExecutor | undefined> {
  const schema = options.schema ?? 'svcws_history';
  let db: SqlExecutor;
  if (options.url !== undefined) db = openPgExecutor({ url: options.url, schema });
  else if (options.embedded === true) {
    db = await openPgliteExecutor({
      schema,
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    });
  } else return undefined;
  if (options.migrate ?? true) {
    try {
      await migrateHistory(db);
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  return db;
}
