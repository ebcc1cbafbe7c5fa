import { HISTORY_MIGRATIONS } from './history-migrations';
import type { HistoryMigration } from './history-migrations';
import type { SqlExecutor } from './sql-executor';

/** What one run of the migrations did. */
export interface MigrationResult {
  readonly applied: readonly number[];
  readonly current: number;
}

/**
 * Brings the schema to the newest version, in one transaction under a transaction-level advisory
 * lock keyed by the schema's name: a fleet starting at once waits in line, and each one after the
 * first finds nothing left to do. Called at start-up and by `history migrate`.
 */
export async function migrateHistory(
  db: SqlExecutor,
  migrations: readonly HistoryMigration[] = HISTORY_MIGRATIONS,
): Promise<MigrationResult> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svcws-history:${db.schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${db.schema}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${db.schema}.schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = await tx.query<{ version: number }>(
      `SELECT version FROM ${db.schema}.schema_migrations`,
    );
    const have = new Set(done.rows.map((row) => Number(row.version)));
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (have.has(migration.version)) continue;
      for (const statement of statementsOf(migration.sql)) await tx.query(statement);
      await tx.query(`INSERT INTO ${db.schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    const current = Math.max(0, ...have, ...applied);
    return { applied, current };
  });
}

/** A migration's statements one by one (each is sent alone: one statement per extended query). */
function statementsOf(sql: string): string[] {
  return sql
    .split(/;\s*\n/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}
