import { currentRecordOf } from './outcome-record-before-1';
import { HistoryRecord } from './history-record';
import type { StoredRecord } from './write-history-batch';

/**
 * How records sit in the outbox stream. Field `r`: one record (JSON). Field `rs`: the records
 * several jobs produced within one tick, a JSON array appended with one XADD (group commit); the
 * record at index i is `<entry id>:<i>`, or the id at i of field `ids` when the entry was written
 * again with some of its records removed (forget), so a record keeps its id — the key that stops
 * a batch written twice from doubling a row.
 */
export const ONE_RECORD = 'r';
export const RECORD_GROUP = 'rs';
export const GROUP_IDS = 'ids';

/** What one stream entry holds: its readable records, and how many it counted in all. */
export interface OutboxEntry {
  readonly records: StoredRecord[];
  /** Records the entry counts in the outbox's backlog (the unreadable ones too). */
  readonly count: number;
  readonly unreadable: number;
}

/** The key counting the records waiting in the outbox (the backlog bound, the metric). */
export function outboxCountKey(streamKey: string): string {
  return `${streamKey}:records`;
}

export function readOutboxEntry(entryId: string, fields: readonly string[]): OutboxEntry {
  const one = fieldOf(fields, ONE_RECORD);
  if (one !== undefined) {
    const record = parseRecord(jsonOf(one));
    return record === undefined
      ? { records: [], count: 1, unreadable: 1 }
      : { records: [{ id: entryId, record }], count: 1, unreadable: 0 };
  }
  const group = jsonOf(fieldOf(fields, RECORD_GROUP));
  if (!Array.isArray(group)) return { records: [], count: 1, unreadable: 1 };
  const ids = jsonOf(fieldOf(fields, GROUP_IDS));
  const records: StoredRecord[] = [];
  group.forEach((value: unknown, index) => {
    const record = parseRecord(value);
    const given: unknown = Array.isArray(ids) ? ids[index] : undefined;
    const id = typeof given === 'string' ? given : `${entryId}:${String(index)}`;
    if (record !== undefined) records.push({ id, record });
  });
  return { records, count: group.length, unreadable: group.length - records.length };
}

function fieldOf(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function jsonOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function parseRecord(value: unknown): HistoryRecord | undefined {
  const result = HistoryRecord.safeParse(currentRecordOf(value));
  return result.success ? result.data : undefined;
}
