import type { HistoryFilters } from './history-filters';
import { eventsWhere } from './history-filters';
import { countHistory } from './search-history';
import type { HistoryContext } from './search-history';

/** "Recover since": one route, the events received in [since, until), one institution or all. */
export interface RecoveryWindow {
  readonly route: string;
  readonly since: Date;
  readonly until?: Date | undefined;
  readonly institution?: string | undefined;
}

/** A recovery candidate as a dry run shows it: the event and its last failure on the route. */
export interface RecoveryCandidate {
  readonly institution: string;
  readonly eventId: string;
  readonly action: string;
  readonly receivedAt: string;
  readonly failedAt: string;
  readonly attempt: number;
  readonly status: number | null;
  /** As the history keeps it: the event's personal values already masked (history-record.ts). */
  readonly error: string | null;
}

export interface RecoveryPreview {
  /** How many events would be sent again; with `more`, the cap (a floor). */
  readonly count: number;
  /** More than `count` events qualify: a run stops at the cap. */
  readonly more: boolean;
  readonly sample: RecoveryCandidate[];
}

/**
 * The events to recover as history filters: those whose latest attempt on the route is a final
 * failure (retries exhausted). An event that later succeeded — on a retry, a replay or an earlier
 * recovery — has a later `delivered` attempt; one still being retried has a later `retrying` one:
 * neither is sent again. The window is the events' receipt time, as every history filter's.
 */
export function recoveryFilters(window: RecoveryWindow): HistoryFilters {
  return {
    route: window.route,
    outcome: 'failed',
    since: window.since,
    ...(window.until === undefined ? {} : { until: window.until }),
    ...(window.institution === undefined ? {} : { institution: window.institution }),
  };
}

interface CandidateRow extends Omit<RecoveryCandidate, 'receivedAt' | 'failedAt'> {
  receivedAt: Date | string;
  failedAt: Date | string;
}

/** The dry run: the count (stopping at `atMost`) and the newest few with their last failure. */
export async function previewRecovery(
  context: HistoryContext,
  window: RecoveryWindow,
  options: { readonly sampleSize: number; readonly atMost: number },
): Promise<RecoveryPreview> {
  const filters = recoveryFilters(window);
  const count = await countHistory(context, filters, options.atMost);
  const where = eventsWhere(filters, context.keys);
  const route = `$${String(where.params.length + 1)}`;
  const result = await context.db.query<CandidateRow>(
    `SELECT e.institution, e.event_id AS "eventId", e.action, e.received_at AS "receivedAt",
        last.ended_at AS "failedAt", last.attempt, last.status, last.error
      FROM events e
      JOIN LATERAL (SELECT a.ended_at, a.attempt, a.status, a.error FROM attempts a
        WHERE a.patron = e.patron AND a.event_received_at = e.received_at
          AND a.event_id = e.event_id AND a.institution = e.institution AND a.route = ${route}
        ORDER BY a.ended_at DESC, a.attempt DESC LIMIT 1) last ON TRUE
      WHERE ${where.sql}
      ORDER BY e.received_at DESC, e.institution DESC, e.event_id DESC
      LIMIT ${String(Math.max(1, Math.floor(options.sampleSize)))}`,
    [...where.params, window.route],
  );
  const sample = result.rows.map((row) => ({
    ...row,
    receivedAt: new Date(row.receivedAt).toISOString(),
    failedAt: new Date(row.failedAt).toISOString(),
  }));
  const more = count > options.atMost;
  return { count: more ? options.atMost : count, more, sample };
}
