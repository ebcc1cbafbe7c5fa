import { dropPartitions, expiredPartitions, listDayPartitions } from './history-partitions';
import type { SqlExecutor } from './sql-executor';

export interface PruneResult {
  /** Day partitions dropped (events and attempts, patron and other). */
  readonly dropped: readonly string[];
  readonly jobOutcomes: number;
  readonly audit: number;
  /** Records set aside past their retention (the patron one for patron records). */
  readonly setAside: number;
}

/**
 * Retention now: drops every day partition past its retention (HISTORY_PATRON_RETENTION_DAYS for
 * patron rows, HISTORY_RETENTION_DAYS for the rest) — no row is scanned — and deletes job
 * outcomes and audit entries older than HISTORY_RETENTION_DAYS (small tables, no patron data),
 * and records set aside past the retention of their kind (patron or not).
 */
export async function pruneHistory(
  db: SqlExecutor,
  retention: { readonly days: number; readonly patronDays: number },
  now: Date = new Date(),
): Promise<PruneResult> {
  const expired = expiredPartitions(await listDayPartitions(db), now, retention);
  await dropPartitions(db, expired);
  const cutoff = new Date(now.getTime() - retention.days * 86_400_000).toISOString();
  const outcomes = await db.query(
    'DELETE FROM job_outcomes WHERE event_received_at < $1::timestamptz',
    [cutoff],
  );
  const audit = await db.query('DELETE FROM audit WHERE at < $1::timestamptz', [cutoff]);
  const patronCutoff = new Date(now.getTime() - retention.patronDays * 86_400_000).toISOString();
  const setAside = await db.query(
    `DELETE FROM set_aside
      WHERE set_aside_at < CASE WHEN patron THEN $2::timestamptz ELSE $1::timestamptz END`,
    [cutoff, patronCutoff],
  );
  return {
    dropped: expired.map((partition) => partition.name),
    jobOutcomes: outcomes.rowCount,
    audit: audit.rowCount,
    setAside: setAside.rowCount,
  };
}
