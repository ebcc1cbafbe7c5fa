/**
 * The history's schema, version by version. Kept as strings in a module (not .sql files) so the
 * build carries them into dist/ with the code and nothing has to copy or find files at run time.
 * A version is never edited once released: a change is a new version. Statements name no schema:
 * every connection starts in HISTORY_SCHEMA (search_path).
 */
export interface HistoryMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * Events and delivery attempts are partitioned first by whether they are about a patron, then by
 * the UTC day the listener received the event (an attempt lives with its event), so both
 * retentions are partition drops (history-partitions.ts creates the days). Identifiers are arrays
 * in one GIN index; user ids are HMAC hashes only (docs/privacy.md).
 */
const INITIAL = `
CREATE TABLE events (
  patron boolean NOT NULL,
  received_at timestamptz NOT NULL,
  institution text NOT NULL,
  event_id text NOT NULL,
  action text NOT NULL,
  event_code text,
  platform_time text,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  user_keys text[] NOT NULL DEFAULT '{}',
  barcodes text[] NOT NULL DEFAULT '{}',
  mms_ids text[] NOT NULL DEFAULT '{}',
  loan_ids text[] NOT NULL DEFAULT '{}',
  request_ids text[] NOT NULL DEFAULT '{}',
  job_instance_ids text[] NOT NULL DEFAULT '{}',
  body jsonb,
  body_sealed bytea,
  PRIMARY KEY (patron, received_at, institution, event_id)
) PARTITION BY LIST (patron);
CREATE TABLE events_patron PARTITION OF events FOR VALUES IN (true) PARTITION BY RANGE (received_at);
CREATE TABLE events_other PARTITION OF events FOR VALUES IN (false) PARTITION BY RANGE (received_at);
CREATE INDEX events_by_id ON events (event_id);
CREATE INDEX events_by_institution_action ON events (institution, action, received_at);
CREATE INDEX events_by_action ON events (action, received_at);
CREATE INDEX events_by_identifier ON events
  USING gin (user_keys, barcodes, mms_ids, loan_ids, request_ids, job_instance_ids);

CREATE TABLE attempts (
  patron boolean NOT NULL,
  event_received_at timestamptz NOT NULL,
  record_id text NOT NULL,
  institution text NOT NULL,
  event_id text NOT NULL,
  route text NOT NULL,
  job_id text,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  ended_at timestamptz NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'retrying', 'failed', 'skipped')),
  status integer,
  error text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (patron, event_received_at, record_id)
) PARTITION BY LIST (patron);
CREATE TABLE attempts_patron PARTITION OF attempts FOR VALUES IN (true) PARTITION BY RANGE (event_received_at);
CREATE TABLE attempts_other PARTITION OF attempts FOR VALUES IN (false) PARTITION BY RANGE (event_received_at);
CREATE INDEX attempts_by_event ON attempts (event_id, institution, ended_at);
CREATE INDEX attempts_by_route_outcome ON attempts (route, outcome, event_received_at);

CREATE TABLE job_outcomes (
  record_id text PRIMARY KEY,
  event_received_at timestamptz NOT NULL,
  institution text NOT NULL,
  event_id text NOT NULL,
  job_instance_id text,
  job_name text,
  outcome text NOT NULL,
  counters jsonb,
  files jsonb,
  error text,
  recorded_at timestamptz NOT NULL
);
CREATE INDEX job_outcomes_by_event ON job_outcomes (event_id, institution);
CREATE INDEX job_outcomes_by_instance ON job_outcomes (job_instance_id);
CREATE INDEX job_outcomes_by_time ON job_outcomes (event_received_at);

CREATE TABLE audit (
  record_id text PRIMARY KEY,
  at timestamptz NOT NULL,
  actor text NOT NULL,
  action text NOT NULL,
  target text,
  details jsonb NOT NULL DEFAULT '{}',
  count integer
);
CREATE INDEX audit_by_time ON audit (at);
`;

/**
 * The newest events without a filter (the console's Events page, a replay's pages): every other
 * key leads with a filter column, so PostgreSQL sorted the whole table for the first 50 rows. On
 * the search's own sort key each day partition is read backward and the two patron subtrees are
 * merged (Merge Append under the LIMIT), a page costing the same at any size. Built on every
 * partition at once (an index on a partitioned table cannot be CONCURRENTLY): on a large history
 * writes wait for the build, seconds per million events.
 */
const NEWEST_FIRST = `
CREATE INDEX events_by_time ON events (received_at, institution, event_id);
`;

/**
 * Records PostgreSQL refused for their data, set aside by the writer so the rest is written
 * (create-history-writer.ts): the record's JSON as bytes (bytea holds any byte, so the table takes
 * whatever a column refused), the refusal's SQLSTATE and message, and the keys an operator lists
 * and finds them by, already made storable. `user_keys` lets forgetting a person reach them;
 * `patron` gives them the patron retention.
 */
const SET_ASIDE = `
CREATE TABLE set_aside (
  record_id text PRIMARY KEY,
  set_aside_at timestamptz NOT NULL DEFAULT now(),
  record_type text NOT NULL,
  patron boolean NOT NULL,
  institution text NOT NULL,
  event_id text NOT NULL,
  user_keys text[] NOT NULL DEFAULT '{}',
  sqlstate text NOT NULL,
  reason text NOT NULL,
  record bytea NOT NULL
);
CREATE INDEX set_aside_by_time ON set_aside (set_aside_at);
`;

/**
 * The journey's steps the worker adds (docs/history.md, "The journey"): one row per run of an
 * event's job — when it was queued and taken, when the run ended and how — written from the
 * outbox batch the event's own records ride in (write-history-batch.ts). A run's take and end
 * that arrive in one batch make one row; in two batches, two rows of the same run (the journey
 * reads them together). Insert-only: a step read before its event, a job taken twice or a batch
 * written again cannot lose or double one. Partitioned as attempts are (a step lives with its
 * event: retention is a partition drop); read by the primary key's leading columns.
 */
const EVENT_STEPS = `
CREATE TABLE event_steps (
  patron boolean NOT NULL,
  event_received_at timestamptz NOT NULL,
  record_id text NOT NULL,
  institution text NOT NULL,
  event_id text NOT NULL,
  job_id text,
  run integer NOT NULL,
  queued_at timestamptz,
  taken_at timestamptz,
  ended_at timestamptz,
  outcome text CHECK (outcome IN ('completed', 'failed', 'retrying', 'rate-limited', 'aborted')),
  PRIMARY KEY (patron, event_received_at, record_id)
) PARTITION BY LIST (patron);
CREATE TABLE event_steps_patron PARTITION OF event_steps FOR VALUES IN (true)
  PARTITION BY RANGE (event_received_at);
CREATE TABLE event_steps_other PARTITION OF event_steps FOR VALUES IN (false)
  PARTITION BY RANGE (event_received_at);
`;

export const HISTORY_MIGRATIONS: readonly HistoryMigration[] = [
  { version: 1, name: 'events, attempts, job outcomes, audit', sql: INITIAL },
  { version: 2, name: 'events newest first', sql: NEWEST_FIRST },
  { version: 3, name: 'records set aside', sql: SET_ASIDE },
  { version: 4, name: 'event steps (a run queued, taken, ended)', sql: EVENT_STEPS },
];
