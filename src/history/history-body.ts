import type { CanonicalEvent } from '../events/canonical-event';
import { bodyAad } from './event-record-of';
import type { HistoryContext } from './search-history';

/**
 * The event as it was received, from its stored body: in clear for a non-patron event, unsealed
 * for a patron one. Undefined when no body was kept (HISTORY_BODIES, or forgotten).
 */
export async function historyBody(
  context: HistoryContext,
  key: { institution: string; eventId: string; receivedAt: string },
): Promise<CanonicalEvent | undefined> {
  const result = await context.db.query<{ body: CanonicalEvent | null; sealed: string | null }>(
    `SELECT body, encode(body_sealed, 'base64') AS sealed FROM events
      WHERE received_at = $1::timestamptz AND institution = $2 AND event_id = $3`,
    [key.receivedAt, key.institution, key.eventId],
  );
  const row = result.rows[0];
  if (row === undefined) return undefined;
  if (row.body !== null) return row.body;
  if (row.sealed === null) return undefined;
  const plain = context.keys.unseal(
    Buffer.from(row.sealed, 'base64'),
    bodyAad(key.institution, key.eventId),
  );
  return JSON.parse(plain.toString()) as CanonicalEvent;
}
