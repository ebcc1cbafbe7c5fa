import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openHistoryDatabase } from '../../src/history/open-history-database';
import { openPgExecutor } from '../../src/history/pg-executor';
import type { SqlExecutor } from '../../src/history/sql-executor';
import { startStoppableProxy } from './stoppable-proxy';
import type { StoppableProxy } from './stoppable-proxy';
import { TEST_POSTGRES_URL } from './test-services';
import { hostAndPort } from './test-services';

/** The PostgreSQL the tests use (the private one of test/services). */
export const TEST_DATABASE_URL = TEST_POSTGRES_URL;

/** A schema name no other test (or test run) uses. */
export function uniqueSchema(prefix: string): string {
  return `t_${prefix}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
}

/** Drops the schema and everything in it; call in afterEach/afterAll. */
export async function dropSchema(schema: string, url = TEST_DATABASE_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** A migrated history in a schema of its own on the test PostgreSQL. */
export async function openTestHistory(
  prefix: string,
  url = TEST_DATABASE_URL,
): Promise<{ db: SqlExecutor; schema: string; close: () => Promise<void> }> {
  const schema = uniqueSchema(prefix);
  const db = await openHistoryDatabase({ url, schema });
  if (db === undefined) throw new Error('no history database');
  return {
    db,
    schema,
    close: async () => {
      await db.close();
      await dropSchema(schema);
    },
  };
}

/** Every row of every table of the schema (partitions included) as text, for a grep. */
export async function dumpSchemaText(db: SqlExecutor): Promise<string> {
  const tables = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')`,
  );
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await db.query<{ line: string }>(`SELECT t::text AS line FROM ONLY ${name} t`);
    for (const row of rows.rows) parts.push(`${name}: ${row.line}`);
  }
  return parts.join('\n');
}

/**
 * The history in `schema` reached through a proxy the test stops and starts (PostgreSQL down and
 * back) with a short connection timeout; `close` closes both.
 */
export async function openHistoryThroughProxy(
  schema: string,
): Promise<{ db: SqlExecutor; proxy: StoppableProxy; close: () => Promise<void> }> {
  const proxy = await startStoppableProxy(hostAndPort(TEST_DATABASE_URL));
  const url = new URL(TEST_DATABASE_URL);
  url.host = `127.0.0.1:${String(proxy.port)}`;
  const db = openPgExecutor({ url: url.toString(), schema, connectionTimeoutMs: 500 });
  return {
    db,
    proxy,
    close: async () => {
      await db.close();
      await proxy.close();
    },
  };
}
