import type { SqlQuery } from './sql-executor';

/** One row of the audit trail: who did what, when (replays, forgets, console actions). */
export interface AuditEntry {
  readonly at: string;
  readonly actor: string;
  readonly action: string;
  readonly target: string | null;
  readonly details: Record<string, unknown>;
  readonly count: number | null;
}

export interface AuditQuery {
  /** Only rows naming this institution (in `details.institution` or `details.filters.institution`). */
  readonly institution?: string | undefined;
  readonly actor?: string | undefined;
  readonly action?: string | undefined;
  /** The `next` of the page before: rows strictly older. */
  readonly before?: string | undefined;
  readonly limit?: number | undefined;
}

export interface AuditPage {
  readonly items: AuditEntry[];
  readonly next?: string;
}

interface AuditRow extends Omit<AuditEntry, 'at'> {
  at: Date | string;
}

/** The audit trail, newest first, keyset by time (the `audit_by_time` index). */
export async function listAudit(db: SqlQuery, query: AuditQuery): Promise<AuditPage> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const params: unknown[] = [];
  const clauses: string[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${String(params.length)}`;
  };
  if (query.institution !== undefined) {
    const p = param(query.institution);
    clauses.push(`(details->>'institution' = ${p} OR details->'filters'->>'institution' = ${p})`);
  }
  if (query.actor !== undefined) clauses.push(`actor = ${param(query.actor)}`);
  if (query.action !== undefined) clauses.push(`action = ${param(query.action)}`);
  if (query.before !== undefined) clauses.push(`at < ${param(query.before)}::timestamptz`);
  const result = await db.query<AuditRow>(
    `SELECT at, actor, action, target, details, count FROM audit
      WHERE ${clauses.length === 0 ? 'TRUE' : clauses.join(' AND ')}
      ORDER BY at DESC LIMIT ${String(limit + 1)}`,
    params,
  );
  const items = result.rows
    .slice(0, limit)
    .map((row) => ({ ...row, at: new Date(row.at).toISOString() }));
  const last = items.at(-1);
  if (result.rows.length <= limit || last === undefined) return { items };
  return { items, next: last.at };
}
