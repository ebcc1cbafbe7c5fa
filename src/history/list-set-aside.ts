import type { SqlQuery } from './sql-executor';

/** One record the writer set aside (PostgreSQL refused it for its data), as an operator lists it. */
export interface SetAsideEntry {
  /** The record's outbox id (its key in the history). */
  readonly recordId: string;
  readonly setAsideAt: string;
  /** event, attempt, outcome, step or audit. */
  readonly recordType: string;
  readonly patron: boolean;
  readonly institution: string;
  /** The event's id as stored (past 512 bytes: `sha256:<hex>`, storable-record.ts). */
  readonly eventId: string;
  /** The refusal's SQLSTATE (22…: bad data, 54…: too large, 23…: a constraint). */
  readonly sqlstate: string;
  /** PostgreSQL's message, at most 500 characters. */
  readonly reason: string;
  /**
   * The record's JSON as the writer had it: user ids already hashed and patron bodies sealed, as
   * in every record (docs/privacy.md).
   */
  readonly record: string;
}

export interface SetAsideQuery {
  readonly institution?: string | undefined;
  /** The `next` of the page before: records set aside strictly earlier. */
  readonly before?: string | undefined;
  readonly limit?: number | undefined;
}

export interface SetAsidePage {
  readonly items: SetAsideEntry[];
  readonly next?: string;
}

interface SetAsideRow {
  record_id: string;
  set_aside_at: Date | string;
  record_type: string;
  patron: boolean;
  institution: string;
  event_id: string;
  sqlstate: string;
  reason: string;
  record: string;
}

/** The records set aside, newest first, keyset by time (the `set_aside_by_time` index). */
export async function listSetAside(db: SqlQuery, query: SetAsideQuery = {}): Promise<SetAsidePage> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const params: unknown[] = [];
  const clauses: string[] = [];
  if (query.institution !== undefined) {
    params.push(query.institution);
    clauses.push(`institution = $${String(params.length)}`);
  }
  if (query.before !== undefined) {
    params.push(query.before);
    clauses.push(`set_aside_at < $${String(params.length)}::timestamptz`);
  }
  const result = await db.query<SetAsideRow>(
    `SELECT record_id, set_aside_at, record_type, patron, institution, event_id, sqlstate, reason,
        convert_from(record, 'UTF8') AS record
      FROM set_aside WHERE ${clauses.length === 0 ? 'TRUE' : clauses.join(' AND ')}
      ORDER BY set_aside_at DESC, record_id LIMIT ${String(limit + 1)}`,
    params,
  );
  const items = result.rows.slice(0, limit).map(entryOf);
  const last = items.at(-1);
  if (result.rows.length <= limit || last === undefined) return { items };
  return { items, next: last.setAsideAt };
}

function entryOf(row: SetAsideRow): SetAsideEntry {
  return {
    recordId: row.record_id,
    setAsideAt: new Date(row.set_aside_at).toISOString(),
    recordType: row.record_type,
    patron: row.patron,
    institution: row.institution,
    eventId: row.event_id,
    sqlstate: row.sqlstate,
    reason: row.reason,
    record: row.record,
  };
}

/** How many records are set aside (one institution's, or all): what a viewer is shown. */
export async function countSetAside(
  db: SqlQuery,
  query: Pick<SetAsideQuery, 'institution'> = {},
): Promise<number> {
  const byInstitution = query.institution !== undefined;
  const result = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM set_aside WHERE ${byInstitution ? 'institution = $1' : 'TRUE'}`,
    byInstitution ? [query.institution] : [],
  );
  return Number(result.rows[0]?.n ?? 0);
}
