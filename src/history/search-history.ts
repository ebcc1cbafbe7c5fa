import { encodeCursor, eventsWhere } from './history-filters';
import type { HistoryFilters } from './history-filters';
import type { HistoryKeys } from './history-keys';
import type { SqlQuery } from './sql-executor';

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

export const SUMMARY_COLUMNS = `e.institution, e.event_id AS "eventId", e.action,
  e.event_code AS "eventCode", e.platform_time AS "platformTime", e.received_at AS "receivedAt",
  e.patron, e.barcodes, e.mms_ids AS "mmsIds", e.loan_ids AS "loanIds",
  e.request_ids AS "requestIds", e.job_instance_ids AS "jobInstanceIds",
  (e.body IS NOT NULL OR e.body_sealed IS NOT NULL) AS "hasBody"`;

type SummaryRow = Omit<HistoryEventSummary, 'receivedAt'> & { receivedAt: Date | string };

export function summaryOf(row: SummaryRow): HistoryEventSummary {
  return { ...row, receivedAt: new Date(row.receivedAt).toISOString() };
}

/** One page of events, newest first (keyset pagination). */
export async function searchHistory(
  context: HistoryContext,
  filters: HistoryFilters,
): Promise<HistoryPage> {
  const limit = Math.min(Math.max(filters.limit ?? 50, 1), 1000);
  const where = eventsWhere(filters, context.keys);
  const result = await context.db.query<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM events e WHERE ${where.sql}
      ORDER BY e.received_at DESC, e.institution DESC, e.event_id DESC
      LIMIT ${String(limit + 1)}`,
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

/** How many events match (a replay's dry run). */
export async function countHistory(
  context: HistoryContext,
  filters: HistoryFilters,
): Promise<number> {
  const whole: HistoryFilters = { ...filters };
  delete whole.after;
  const where = eventsWhere(whole, context.keys);
  const result = await context.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events e WHERE ${where.sql}`,
    where.params,
  );
  return Number(result.rows[0]?.n ?? 0);
}
