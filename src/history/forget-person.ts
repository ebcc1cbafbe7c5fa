import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import type { CanonicalEvent } from '../events/canonical-event';
import type { RejectedStore } from '../events/rejected-store';
import { personalIdsOf } from '../events/personal-fields';
import type { HistoryKeys } from './history-keys';
import { GROUP_IDS, RECORD_GROUP, outboxCountKey, readOutboxEntry } from './outbox-entry';
import type { SqlExecutor } from './sql-executor';
import type { StoredRecord } from './write-history-batch';

export interface ForgetOptions {
  /** The history's database; absent when history is off (Redis is still searched). */
  readonly db?: SqlExecutor;
  readonly keys: HistoryKeys;
  /** The history outbox, to drop records of the person not yet written. */
  readonly redis?: RedisClient;
  readonly streamKey?: string;
  /** Event and route queues whose completed and failed jobs are searched. */
  readonly queues?: readonly Queue[];
  readonly rejected?: RejectedStore;
  /** Who asked (CLI user, console identity): kept in the audit with the person's hash only. */
  readonly actor: string;
}

/** What was removed where. */
export interface ForgetReport {
  readonly personHash: string;
  readonly historyEvents: number;
  readonly historyAttempts: number;
  readonly outboxRecords: number;
  readonly queueJobs: Record<string, number>;
  readonly rejected: number;
}

/**
 * Removes a person from everything this service holds: history rows whose identifiers match
 * (their sealed bodies go with the row), their attempts, records still in the outbox, completed
 * and failed jobs of the queues whose event names them, and rejected deliveries that carry the
 * id. Destinations (the institution's own systems) are out of its reach (docs/privacy.md).
 */
export async function forgetPerson(options: ForgetOptions, person: string): Promise<ForgetReport> {
  const personHash = options.keys.hashPerson(person);
  const fromHistory =
    options.db === undefined
      ? { events: 0, attempts: 0 }
      : await forgetInHistory(options.db, personHash);
  const outboxRecords = await forgetInOutbox(options, personHash);
  const queueJobs: Record<string, number> = {};
  for (const queue of options.queues ?? []) {
    queueJobs[queue.name] = await forgetInQueue(queue, options.keys, personHash);
  }
  const rejected = await forgetInRejected(options.rejected, person);
  const report: ForgetReport = {
    personHash,
    historyEvents: fromHistory.events,
    historyAttempts: fromHistory.attempts,
    outboxRecords,
    queueJobs,
    rejected,
  };
  if (options.db !== undefined) {
    await options.db.query(
      `INSERT INTO audit (record_id, at, actor, action, target, details, count)
       VALUES (gen_random_uuid()::text, now(), $1, 'forget', $2, $3::jsonb, $4)`,
      [options.actor, personHash, JSON.stringify(report), fromHistory.events],
    );
  }
  return report;
}

async function forgetInHistory(
  db: SqlExecutor,
  personHash: string,
): Promise<{ events: number; attempts: number }> {
  return db.transaction(async (tx) => {
    const attempts = await tx.query(
      `DELETE FROM attempts a USING events e
        WHERE e.user_keys @> ARRAY[$1::text] AND a.patron = e.patron
          AND a.event_received_at = e.received_at AND a.event_id = e.event_id
          AND a.institution = e.institution`,
      [personHash],
    );
    // Their steps hold no person's value, but are of events that no longer exist.
    await tx.query(
      `DELETE FROM event_steps s USING events e
        WHERE e.user_keys @> ARRAY[$1::text] AND s.patron = e.patron
          AND s.event_received_at = e.received_at AND s.event_id = e.event_id
          AND s.institution = e.institution`,
      [personHash],
    );
    const events = await tx.query('DELETE FROM events WHERE user_keys @> ARRAY[$1::text]', [
      personHash,
    ]);
    // Their event records set aside (refused by PostgreSQL) are events of the history too.
    const setAside = await tx.query('DELETE FROM set_aside WHERE user_keys @> ARRAY[$1::text]', [
      personHash,
    ]);
    return { events: events.rowCount + setAside.rowCount, attempts: attempts.rowCount };
  });
}

/**
 * Outbox records of the person's events (and their attempts), read whole: the outbox is bounded.
 * An entry holding others' records too is written again without the person's, each record under
 * its own id (outbox-entry.ts), so a batch already in PostgreSQL is not doubled by it.
 */
async function forgetInOutbox(options: ForgetOptions, personHash: string): Promise<number> {
  const { redis, streamKey } = options;
  if (redis === undefined || streamKey === undefined) return 0;
  const entries = (await redis.xrange(streamKey, '-', '+')).map(([id, fields]) => ({
    id,
    ...readOutboxEntry(id, fields),
  }));
  const events = new Set(
    entries.flatMap(({ records }) =>
      records.flatMap(({ record }) =>
        record.type === 'event' && record.userKeys.includes(personHash)
          ? [`${record.institution}\u0000${record.eventId}`]
          : [],
      ),
    ),
  );
  const isDoomed = ({ record }: StoredRecord): boolean =>
    record.type !== 'audit' && events.has(`${record.institution}\u0000${record.eventId}`);
  let removed = 0;
  for (const entry of entries) {
    const kept = entry.records.filter((one) => !isDoomed(one));
    if (kept.length === entry.records.length) continue;
    removed += entry.records.length - kept.length;
    const write = redis.multi().xdel(streamKey, entry.id);
    write.decrby(outboxCountKey(streamKey), entry.records.length - kept.length);
    if (kept.length > 0) {
      write.xadd(
        streamKey,
        '*',
        RECORD_GROUP,
        JSON.stringify(kept.map(({ record }) => record)),
        GROUP_IDS,
        JSON.stringify(kept.map(({ id }) => id)),
      );
    }
    await write.exec();
  }
  return removed;
}

/** Completed and failed jobs whose event names the person, a page at a time. */
async function forgetInQueue(queue: Queue, keys: HistoryKeys, personHash: string): Promise<number> {
  let removed = 0;
  for (const state of ['completed', 'failed'] as const) {
    for (let start = 0; ; start += 500) {
      const jobs = await queue.getJobs([state], start, start + 499);
      if (jobs.length === 0) break;
      for (const job of jobs) {
        const ids = personalIdsOf(job.data as CanonicalEvent);
        if (ids.some((id) => keys.hashPerson(id) === personHash)) {
          await job.remove();
          removed += 1;
          start -= 1;
        }
      }
      if (jobs.length < 500) break;
    }
  }
  return removed;
}

/** Rejected deliveries are raw bytes: any that contains the id is removed. */
async function forgetInRejected(store: RejectedStore | undefined, person: string): Promise<number> {
  if (store === undefined) return 0;
  let removed = 0;
  const needle = person.trim().toLowerCase();
  for (const entry of await store.list()) {
    const kept = await store.get(entry.ref);
    if (kept !== undefined && kept.body.toString('utf8').toLowerCase().includes(needle)) {
      if (await store.remove(entry.ref)) removed += 1;
    }
  }
  return removed;
}
