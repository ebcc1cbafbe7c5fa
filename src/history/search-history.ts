import { encodeCursor, eventsWhere } from './history-filters';
import type { HistoryFilters } from './history-filters';
import type { HistoryKeys } from './history-keys';
import type { SqlQuery } from './sql-executor';
import { writeAudit } from './write-audit';

/** What a search lists of one event: never a person's data (ids hashed, body not included). */
export interface HistoryEventSummary {
  readonly institution: string;
  readonly eventId: string;
  readonly action: string;
  readonly eventCode: string | null;
  readonly platformTime: string | null;
  readonly receivedAt: string;
  readonly patron: boolean;
  readonly barcodes: string[];
  readonly mmsIds: string[];
  readonly loanIds: string[];
  readonly requestIds: string[];
  readonly jobInstanceIds: string[];
  readonly hasBody: boolean;
  /** An event the reconciliation found again (its body's `meta.recovered`, docs/history.md). */
  readonly recovered: boolean;
}

export interface HistoryPage {
  readonly items: HistoryEventSummary[];
  /** Pass as `after` for the next page; absent on the last one. */
  readonly next?: string;
}

/** Where the history's functions read: its database and the keys of its hashes and bodies. */
export interface HistoryContext {
  readonly db: SqlQuery;
  readonly keys: HistoryKeys;
}

/**
 * The reconciliation's mark (a kind room's `meta.recovered`, docs/history.md): `meta.recovered` in the
 * body, or — the body not kept (HISTORY_BODIES) — the id it gives, which no platform id has.
 */
const RECOVERED = `(COALESCE(e.body->'meta'->'recovered' = 'true'::jsonb, false)
  OR e.event_id LIKE 'recovered-%') AS recovered`;

export const SUMMARY_COLUMNS = `e.institution, e.event_id AS "eventId", e.action,
  e.event_code AS "eventCode", e.platform_time AS "platformTime", e.received_at AS "receivedAt",
  e.patron, e.barcodes, e.mms_ids AS "mmsIds", e.loan_ids AS "loanIds",
  e.request_ids AS "requestIds", e.job_instance_ids AS "jobInstanceIds",
  (e.body IS NOT NULL OR e.body_sealed IS NOT NULL) AS "hasBody",
  ${RECOVERED}`;

type SummaryRow = Omit<HistoryEventSummary, 'receivedAt'> & { receivedAt: Date | string };

export function summaryOf(row: SummaryRow): HistoryEventSummary {
  return { ...row, receivedAt: new Date(row.receivedAt).toISOString() };
}

/**
 * Keeps one search by person (`history search --user`, the console's) in the audit, the person
 * named by their keyed hash only, as a forget is: such a search answers "does this person borrow
 * here", and who asked it is kept.
 */
export async function auditPersonSearch(
  context: HistoryContext,
  entry: {
    readonly actor: string;
    readonly action: string;
    readonly person: string;
    readonly details: Record<string, unknown>;
  },
): Promise<void> {
  await writeAudit(context.db, {
    at: new Date(),
    actor: entry.actor,
    action: entry.action,
    target: context.keys.hashPerson(entry.person),
    details: entry.details,
  });
}

/** Filters answered by their own index (the event id's btree, the identifiers' GIN): few rows. */
const NARROW_FILTERS = ['id', 'user', 'barcode', 'mms', 'loan', 'request', 'jobInstance'] as const;

/**
 * One page of events, newest first (keyset pagination). Without a narrow filter PostgreSQL walks
 * the newest-first index (events_by_time) and stops at the page's end. With one, the matching rows
 * are found by their own index first and then sorted: left to itself the planner would walk the
 * newest-first index hoping to meet the few matches early, reading the whole table when they are
 * old (a CTE MATERIALIZED is the fence). One identifier names few events: their sort is small.
 */
export async function searchHistory(
  context: HistoryContext,
  filters: HistoryFilters,
): Promise<HistoryPage> {
  const limit = Math.min(Math.max(filters.limit ?? 50, 1), 1000);
  const where = eventsWhere(filters, context.keys);
  const narrow = NARROW_FILTERS.some((name) => filters[name] !== undefined);
  const order = `ORDER BY "receivedAt" DESC, institution DESC, "eventId" DESC LIMIT ${String(limit + 1)}`;
  const select = `SELECT ${SUMMARY_COLUMNS} FROM events e WHERE ${where.sql}`;
  const result = await context.db.query<SummaryRow>(
    narrow
      ? `WITH matching AS MATERIALIZED (${select}) SELECT * FROM matching ${order}`
      : `${select} ${order}`,
    where.params,
  );
  const items = result.rows.slice(0, limit).map(summaryOf);
  const last = items.at(-1);
  if (result.rows.length <= limit || last === undefined) return { items };
  return {
    items,
    next: encodeCursor({ at: last.receivedAt, institution: last.institution, id: last.eventId }),
  };
}

/**
 * How many events match (a replay's dry run). With `atMost` it stops counting there: over a
 * million-event history an exact count of a broad filter reads every matching index entry, while
 * `atMost + 1` rows answer "more than atMost" in a few milliseconds.
 */
export async function countHistory(
  context: HistoryContext,
  filters: HistoryFilters,
  atMost?: number,
): Promise<number> {
  const whole: HistoryFilters = { ...filters };
  delete whole.after;
  const where = eventsWhere(whole, context.keys);
  const rows = `SELECT 1 FROM events e WHERE ${where.sql}`;
  const result = await context.db.query<{ n: number }>(
    atMost === undefined
      ? `SELECT count(*)::int AS n FROM (${rows}) AS matching`
      : `SELECT count(*)::int AS n FROM (${rows} LIMIT ${String(Math.max(0, Math.floor(atMost)) + 1)}) AS matching`,
    where.params,
  );
  return Number(result.rows[0]?.n ?? 0);
}
