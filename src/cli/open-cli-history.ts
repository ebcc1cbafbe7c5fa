import { HistoryConfig, loadConfig } from '../config';
import { deriveHistoryKeys, openHistoryDatabase } from '../history';
import type { HistoryContext, SqlExecutor } from '../history';
import { messageOf } from '../message-of';
import type { CliIo } from './cli-io';

export interface CliHistory extends HistoryContext {
  readonly db: SqlExecutor;
  readonly config: HistoryConfig;
}

/** The message of every history command when DATABASE_URL is unset. */
export const HISTORY_OFF =
  'History is off: DATABASE_URL is not set (docs/history.md says how to turn it on).';

/**
 * The history's database for one command (DATABASE_URL, HISTORY_SCHEMA), not migrated (that is
 * `history migrate`'s, and every process's at start-up). Undefined, with the message said, when
 * history is off; a database that does not answer fails the command naming DATABASE_URL.
 */
export async function openCliHistory(io: CliIo): Promise<CliHistory | undefined> {
  const config = loadConfig(HistoryConfig, io.env);
  if (config.DATABASE_URL === undefined || config.HISTORY_KEY === undefined) {
    io.err(HISTORY_OFF);
    return undefined;
  }
  const db = await openHistoryDatabase({
    url: config.DATABASE_URL,
    schema: config.HISTORY_SCHEMA,
    migrate: false,
  });
  if (db === undefined) return undefined;
  try {
    await db.query('SELECT 1');
  } catch (error) {
    await db.close();
    throw new Error(
      `cannot reach the history database at ${databaseTarget(config.DATABASE_URL)} (DATABASE_URL): ${messageOf(error)}`,
    );
  }
  return { db, config, keys: deriveHistoryKeys(config.HISTORY_KEY) };
}

/** `host:port/database` of DATABASE_URL for messages: never its user or password. */
function databaseTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port === '' ? '5432' : parsed.port}${parsed.pathname}`;
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}
