import type { HistoryKeys } from './history-keys';
import { storableIdentifier } from './storable-record';

/** What an operator searches the history by (CLI `history search`, the console). */
export interface HistoryFilters {
  readonly id?: string;
  /** A person's id, card number or e-mail: matched by its keyed hash, never stored in clear. */
  readonly user?: string;
  readonly barcode?: string;
  readonly mms?: string;
  readonly loan?: string;
  readonly request?: string;
  readonly jobInstance?: string;
  readonly institution?: string;
  /** Canonical (lower-case) action. */
  readonly action?: string;
  /** Event code (`event.value`), e.g. LOAN_CREATED. */
  readonly event?: string;
  readonly since?: Date;
  readonly until?: Date;
  /** With `outcome`: events whose latest attempt on this route ended so (pending: retrying). */
  readonly route?: string;
  readonly outcome?: 'delivered' | 'failed' | 'pending' | 'skipped';
  readonly limit?: number;
  /** The `next` of the page before. */
  after?: string;
}

/** Where a page ends: the last row's sort key (received time, institution, event id). */
interface Cursor {
  readonly at: string;
  readonly institution: string;
  readonly id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.institution, cursor.id])).toString(
    'base64url',
  );
}

function decodeCursor(text: string): Cursor {
  const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString());
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    !parsed.every((x) => typeof x === 'string')
  ) {
    throw new Error('not a cursor of this history');
  }
  const [at, institution, id] = parsed as [string, string, string];
  return { at, institution, id };
}

/** A WHERE clause over `events e` and its parameters, numbered from $1. */
export interface EventsWhere {
  readonly sql: string;
  readonly params: unknown[];
}

const ARRAY_FILTERS = [
  ['barcode', 'barcodes'],
  ['mms', 'mms_ids'],
  ['loan', 'loan_ids'],
  ['request', 'request_ids'],
  ['jobInstance', 'job_instance_ids'],
] as const;

/**
 * The filters as SQL. Identifiers use the GIN index (`@> ARRAY[…]`), the event id its btree,
 * institution and action theirs; the cursor is a row comparison on the sort key (keyset
 * pagination: a page costs the same on day one and on day ninety).
 */
export function eventsWhere(filters: HistoryFilters, keys: HistoryKeys): EventsWhere {
  const params: unknown[] = [];
  const clauses: string[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${String(params.length)}`;
  };
  // Ids as the rows keep them: past the index-safe length, their hash (storable-record.ts).
  if (filters.id !== undefined)
    clauses.push(`e.event_id = ${param(storableIdentifier(filters.id))}`);
  if (filters.user !== undefined) {
    clauses.push(`e.user_keys @> ARRAY[${param(keys.hashPerson(filters.user))}::text]`);
  }
  for (const [name, column] of ARRAY_FILTERS) {
    const value = filters[name];
    if (value !== undefined) {
      clauses.push(`e.${column} @> ARRAY[${param(storableIdentifier(value))}::text]`);
    }
  }
  if (filters.institution !== undefined)
    clauses.push(`e.institution = ${param(filters.institution)}`);
  if (filters.action !== undefined)
    clauses.push(`e.action = ${param(filters.action.toLowerCase())}`);
  if (filters.event !== undefined) clauses.push(`e.event_code = ${param(filters.event)}`);
  if (filters.since !== undefined)
    clauses.push(`e.received_at >= ${param(filters.since.toISOString())}::timestamptz`);
  if (filters.until !== undefined)
    clauses.push(`e.received_at < ${param(filters.until.toISOString())}::timestamptz`);
  if (filters.route !== undefined || filters.outcome !== undefined) {
    clauses.push(routeOutcomeClause(param(filters.route ?? ''), param(outcomeOf(filters.outcome))));
  }
  if (filters.after !== undefined) {
    const cursor = decodeCursor(filters.after);
    clauses.push(
      `(e.received_at, e.institution, e.event_id) < (${param(cursor.at)}::timestamptz, ${param(cursor.institution)}, ${param(cursor.id)})`,
    );
  }
  return { sql: clauses.length === 0 ? 'TRUE' : clauses.join(' AND '), params };
}

function outcomeOf(outcome: HistoryFilters['outcome']): string {
  return outcome === 'pending' ? 'retrying' : (outcome ?? 'failed');
}

/** The event's latest attempt on the route ended with the outcome. */
function routeOutcomeClause(route: string, outcome: string): string {
  return `EXISTS (SELECT 1 FROM attempts a
    WHERE a.patron = e.patron AND a.event_received_at = e.received_at
      AND a.event_id = e.event_id AND a.institution = e.institution
      AND a.route = ${route} AND a.outcome = ${outcome}
      AND NOT EXISTS (SELECT 1 FROM attempts b
        WHERE b.patron = a.patron AND b.event_received_at = a.event_received_at
          AND b.event_id = a.event_id AND b.institution = a.institution
          AND b.route = a.route AND (b.ended_at, b.attempt) > (a.ended_at, a.attempt)))`;
}
