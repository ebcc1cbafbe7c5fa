import pg from 'pg';
import type { SqlExecutor, SqlQuery, SqlResult } from './sql-executor';

export interface PgExecutorOptions {
  readonly url: string;
  readonly schema: string;
  /** Connections at most; the writer uses one, search and replay a few. */
  readonly max?: number;
  readonly connectionTimeoutMs?: number;
}

/**
 * node-postgres: pure JavaScript (no install script, no native build), the most used PostgreSQL
 * client of Node with a pool. Every connection starts in the history's schema (`search_path`),
 * so the SQL names no schema and a test can use a schema of its own.
 */
export function openPgExecutor(options: PgExecutorOptions): SqlExecutor {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 4,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    options: `-c search_path=${options.schema}`,
    // An idle connection the server dropped must not crash the process: the next query reconnects.
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', () => undefined);
  const run = async <R>(
    client: pg.Pool | pg.PoolClient,
    text: string,
    params?: readonly unknown[],
  ): Promise<SqlResult<R>> => {
    const result = await client.query(text, params === undefined ? [] : [...params]);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };
  return {
    schema: options.schema,
    embedded: false,
    query: (text, params) => run(pool, text, params),
    transaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx: SqlQuery = { query: (text, params) => run(client, text, params) };
        const result = await work(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    exec: async (text) => {
      await pool.query(text);
    },
    close: () => pool.end(),
  };
}
