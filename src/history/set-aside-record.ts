import type { SqlExecutor } from './sql-executor';
import { sqlStateOf } from './refused-for-data';
import { storableText } from './storable-record';
import type { StoredRecord } from './write-history-batch';

/** The longest refusal message kept: PostgreSQL's own line, not the record it quotes. */
const MAX_REASON_CHARS = 500;

const INSERT_SET_ASIDE = `
INSERT INTO set_aside (record_id, record_type, patron, institution, event_id, user_keys, sqlstate,
  reason, record)
VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, decode($9, 'base64'))
ON CONFLICT DO NOTHING`;

/**
 * Keeps a record PostgreSQL refused for its data in `set_aside` (history-migrations.ts): its JSON
 * as UTF-8 bytes, which bytea always takes, with the refusal's SQLSTATE and message. `stored`
 * has its keys made storable already (storableRecord), so they fit the table's text columns.
 */
export async function setAsideRecord(
  db: SqlExecutor,
  stored: StoredRecord,
  refusal: Error,
): Promise<void> {
  const { id, record } = stored;
  const event = record.type === 'audit' ? undefined : record;
  await db.query(INSERT_SET_ASIDE, [
    id,
    record.type,
    'patron' in record ? record.patron : false,
    event?.institution ?? '',
    event?.eventId ?? '',
    record.type === 'event' ? record.userKeys : [],
    sqlStateOf(refusal) ?? '',
    storableText(refusal.message).slice(0, MAX_REASON_CHARS),
    Buffer.from(JSON.stringify(record)).toString('base64'),
  ]);
}
