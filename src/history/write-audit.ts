import type { SqlQuery } from './sql-executor';

/**
 * Keeps one audit row straight away (the console's own actions: it has no outbox writer of its
 * own, and an operator expects to see what was just done), as replayHistory and forgetPerson do.
 */
export async function writeAudit(
  db: SqlQuery,
  entry: {
    at: Date;
    actor: string;
    action: string;
    target?: string | undefined;
    details: Record<string, unknown>;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO audit (record_id, at, actor, action, target, details)
     VALUES (gen_random_uuid()::text, $1::timestamptz, $2, $3, $4, $5::jsonb)`,
    [
      entry.at.toISOString(),
      entry.actor,
      entry.action,
      entry.target ?? null,
      JSON.stringify(entry.details),
    ],
  );
}
