import { createRequire } from 'node:module';
import type * as Pglite from '@electric-sql/pglite';
import type { SqlExecutor, SqlQuery, SqlResult } from './sql-executor';

export interface PgliteExecutorOptions {
  /** A directory to keep the database in; in memory without one. */
  readonly dataDir?: string;
  readonly schema: string;
}

/**
 * PGlite: PostgreSQL compiled to WebAssembly, in this process, nothing to install — the demo's
 * history. One connection only, so a transaction is PGlite's own (it queues other statements).
 */
export async function openPgliteExecutor(options: PgliteExecutorOptions): Promise<SqlExecutor> {
  const { PGlite } = loadPglite();
  const db = await PGlite.create(options.dataDir === undefined ? {} : { dataDir: options.dataDir });
  await db.exec(
    `CREATE SCHEMA IF NOT EXISTS ${options.schema}; SET search_path TO ${options.schema}`,
  );
  const run = async <R>(
    target: Pick<Pglite.PGlite, 'query'>,
    text: string,
    params?: readonly unknown[],
  ): Promise<SqlResult<R>> => {
    const result = await target.query<R>(text, params === undefined ? [] : [...params]);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };
  return {
    schema: options.schema,
    embedded: true,
    query: (text, params) => run(db, text, params),
    transaction: (work) =>
      db.transaction((tx) => {
        const inner: SqlQuery = { query: (text, params) => run(tx, text, params) };
        return work(inner);
      }),
    exec: async (text) => {
      await db.exec(text);
    },
    close: () => db.close(),
  };
}

/**
 * Required on first use, not at load: PGlite is a development dependency (the demo's engine),
 * absent from a production install, where the history always runs on a PostgreSQL server.
 */
function loadPglite(): typeof Pglite {
  return createRequire(__filename)('@electric-sql/pglite') as typeof Pglite;
}
