import { dayOf, ensureDayPartitions } from './history-partitions';
import type {
  AttemptRecord,
  AuditRecord,
  EventRecord,
  HistoryRecord,
  OutcomeRecord,
  StepRecord,
} from './history-record';
import type { SqlExecutor, SqlQuery } from './sql-executor';
import { stepRowsOf } from './step-rows-of';
import { storableJsonText, storableRecord } from './storable-record';

/** A record with the id the outbox gave it (the row's key for attempts, outcomes and audit). */
export interface StoredRecord {
  readonly id: string;
  readonly record: HistoryRecord;
}

const INSERT_EVENTS = `
INSERT INTO events (patron, received_at, institution, event_id, action, event_code, platform_time,
  user_keys, barcodes, mms_ids, loan_ids, request_ids, job_instance_ids, body, body_sealed)
SELECT r.patron, r."receivedAt", r.institution, r."eventId", r.action, r."eventCode", r."platformTime",
  coalesce(r."userKeys", '{}'), coalesce(r.barcodes, '{}'), coalesce(r."mmsIds", '{}'),
  coalesce(r."loanIds", '{}'), coalesce(r."requestIds", '{}'), coalesce(r."jobInstanceIds", '{}'),
  r.body, decode(r."bodySealed", 'base64')
FROM jsonb_to_recordset($1::jsonb) AS r(patron boolean, "receivedAt" timestamptz, institution text,
  "eventId" text, action text, "eventCode" text, "platformTime" text, "userKeys" text[],
  barcodes text[], "mmsIds" text[], "loanIds" text[], "requestIds" text[], "jobInstanceIds" text[],
  body jsonb, "bodySealed" text)
ON CONFLICT DO NOTHING`;

const INSERT_ATTEMPTS = `
INSERT INTO attempts (patron, event_received_at, record_id, institution, event_id, route, job_id,
  attempt, started_at, ended_at, outcome, status, error, duration_ms)
SELECT r.patron, r."eventReceivedAt", r.id, r.institution, r."eventId", r.route, r."jobId",
  r.attempt, r."startedAt", r."endedAt", r.outcome, r.status, r.error, r."durationMs"
FROM jsonb_to_recordset($1::jsonb) AS r(id text, patron boolean, "eventReceivedAt" timestamptz,
  institution text, "eventId" text, route text, "jobId" text, attempt integer,
  "startedAt" timestamptz, "endedAt" timestamptz, outcome text, status integer, error text,
  "durationMs" integer)
ON CONFLICT DO NOTHING`;

const INSERT_JOB_OUTCOMES = `
INSERT INTO job_outcomes (record_id, event_received_at, institution, event_id, job_instance_id,
  job_name, outcome, counters, files, error, recorded_at)
SELECT r.id, r."eventReceivedAt", r.institution, r."eventId", r."subjectId", r."subjectName",
  r.outcome, r.counters, r.files, r.error, r."recordedAt"
FROM jsonb_to_recordset($1::jsonb) AS r(id text, "eventReceivedAt" timestamptz, institution text,
  "eventId" text, "subjectId" text, "subjectName" text, outcome text, counters jsonb, files jsonb,
  error text, "recordedAt" timestamptz)
ON CONFLICT DO NOTHING`;

const INSERT_STEPS = `
INSERT INTO event_steps (patron, event_received_at, record_id, institution, event_id, job_id, run,
  queued_at, taken_at, ended_at, outcome)
SELECT r.patron, r."eventReceivedAt", r.id, r.institution, r."eventId", r."jobId", r.run,
  r."queuedAt", r."takenAt", r."endedAt", r.outcome
FROM jsonb_to_recordset($1::jsonb) AS r(id text, patron boolean, "eventReceivedAt" timestamptz,
  institution text, "eventId" text, "jobId" text, run integer, "queuedAt" timestamptz,
  "takenAt" timestamptz, "endedAt" timestamptz, outcome text)
ON CONFLICT DO NOTHING`;

const INSERT_AUDIT = `
INSERT INTO audit (record_id, at, actor, action, target, details, count)
SELECT r.id, r.at, r.actor, r.action, r.target, coalesce(r.details, '{}'), r.count
FROM jsonb_to_recordset($1::jsonb) AS r(id text, at timestamptz, actor text, action text,
  target text, details jsonb, count integer)
ON CONFLICT DO NOTHING`;

/**
 * Writes one batch in one transaction, its values made storable first (storable-record.ts): one
 * multi-row INSERT per table (the journey's steps are one more per batch, none per event), ON
 * CONFLICT DO NOTHING, so a batch written again (its writer killed after COMMIT, before XACK) adds
 * no row twice — events are keyed by (institution, id, received time), the rest by their outbox
 * id. `knownDays` caches the days whose partitions exist.
 */
export async function writeHistoryBatch(
  db: SqlExecutor,
  batch: readonly StoredRecord[],
  knownDays: Set<string>,
): Promise<void> {
  const events: EventRecord[] = [];
  const attempts: (AttemptRecord & { id: string })[] = [];
  const outcomes: (OutcomeRecord & { id: string })[] = [];
  const steps: (StepRecord & { id: string })[] = [];
  const audits: (AuditRecord & { id: string })[] = [];
  for (const stored of batch) {
    const { id } = stored;
    const record = storableRecord(stored.record);
    if (record.type === 'event') events.push(record);
    else if (record.type === 'attempt') attempts.push({ ...record, id });
    else if (record.type === 'outcome') outcomes.push({ ...record, id });
    else if (record.type === 'step') steps.push({ ...record, id });
    else audits.push({ ...record, id });
  }
  const days = [
    ...events.map((event) => dayOf(event.receivedAt)),
    ...attempts.map((attempt) => dayOf(attempt.eventReceivedAt)),
    ...steps.map((step) => dayOf(step.eventReceivedAt)),
  ].filter((day) => !knownDays.has(day));
  if (days.length > 0) {
    await ensureDayPartitions(db, days);
    for (const day of days) knownDays.add(day);
  }
  await db.transaction(async (tx) => {
    await insertRows(tx, INSERT_EVENTS, events);
    await insertRows(tx, INSERT_ATTEMPTS, attempts);
    await insertRows(tx, INSERT_JOB_OUTCOMES, outcomes);
    await insertRows(tx, INSERT_STEPS, stepRowsOf(steps));
    await insertRows(tx, INSERT_AUDIT, audits);
  });
}

async function insertRows(tx: SqlQuery, sql: string, rows: readonly object[]): Promise<void> {
  if (rows.length > 0) await tx.query(sql, [storableJsonText(rows)]);
}
