import { journeyStepsOf } from './journey-steps-of';
import type { StepOutcome } from './history-record';
import type { HistoryContext, HistoryEventSummary } from './search-history';
import type { SqlQuery } from './sql-executor';
import { SUMMARY_COLUMNS, summaryOf } from './search-history';

/** One thing that happened to an event, in the order it happened. */
export type JourneyStep =
  | { readonly at: string; readonly kind: 'received'; readonly event: HistoryEventSummary }
  | {
      readonly at: string;
      readonly kind: 'queued';
      /** Who added the job: the listener (or its spool's drainer), or the reconciliation. */
      readonly by: 'listener' | 'reconciliation';
      readonly jobId: string | null;
    }
  | {
      readonly at: string;
      readonly kind: 'taken';
      readonly jobId: string | null;
      /** 1 for the first take; one more each time the job was taken again. */
      readonly run: number;
      /** When this run ended; null: no end recorded (still running, or its worker stopped). */
      readonly endedAt: string | null;
    }
  | {
      readonly at: string;
      /**
       * finished: the worker's processing ended (completed, or failed with no attempt left);
       * released: this run ended and the job goes back to the queue to be taken again.
       */
      readonly kind: 'finished' | 'released';
      readonly outcome: StepOutcome;
      readonly jobId: string | null;
      readonly run: number;
    }
  | {
      readonly at: string;
      readonly kind: 'attempt';
      readonly route: string;
      readonly attempt: number;
      readonly outcome: string;
      readonly status: number | null;
      readonly error: string | null;
      readonly durationMs: number;
      readonly startedAt: string;
      /** inline: made by the worker that took the event, before any route job; queued: a route job's. */
      readonly path: 'inline' | 'queued';
      readonly jobId: string | null;
    }
  | {
      readonly at: string;
      /** What the event's handler came to (its entry's outcome record): its subject's id. */
      readonly kind: 'outcome';
      readonly outcome: string;
      readonly subjectId: string | null;
      readonly counters: unknown;
      readonly files: unknown;
      readonly error: string | null;
    };

interface AttemptRow {
  route: string;
  attempt: number;
  outcome: string;
  status: number | null;
  error: string | null;
  durationMs: number;
  startedAt: Date | string;
  endedAt: Date | string;
  jobId: string | null;
}

interface OutcomeRow {
  outcome: string;
  subjectId: string | null;
  counters: unknown;
  files: unknown;
  error: string | null;
  recordedAt: Date | string;
}

const iso = (time: Date | string): string => new Date(time).toISOString();

/**
 * Everything recorded for one event, oldest first (docs/history.md, "The journey"): its arrival
 * (the listener's clock), when its job was queued and each time a worker took it, each route's
 * attempts, what its handler came to (an outcome: the records files of an import), and when its processing finished. An
 * id sent by two institutions is two events: give the institution to see one. Attempts and steps
 * are read from the event's own day partition.
 */
export async function historyJourney(
  context: HistoryContext,
  eventId: string,
  institution?: string,
): Promise<JourneyStep[]> {
  const params: unknown[] = [eventId];
  const sameInstitution = institution === undefined ? '' : ' AND e.institution = $2';
  if (institution !== undefined) params.push(institution);
  const events = await context.db.query<Parameters<typeof summaryOf>[0]>(
    `SELECT ${SUMMARY_COLUMNS} FROM events e WHERE e.event_id = $1${sameInstitution}`,
    params,
  );
  // Each event's attempts and steps are read from its own day partition only (pruned at plan time).
  const summaries = events.rows.map(summaryOf);
  const partitionSteps: JourneyStep[] = [];
  for (const event of summaries) {
    partitionSteps.push(
      ...(await attemptsOf(context.db, event)),
      ...(await journeyStepsOf(context.db, event)),
    );
  }
  const outcomes = await context.db.query<OutcomeRow>(
    `SELECT o.outcome, o.job_instance_id AS "subjectId", o.counters, o.files, o.error,
            o.recorded_at AS "recordedAt"
       FROM job_outcomes o WHERE o.event_id = $1${sameInstitution.replace('e.', 'o.')}`,
    params,
  );
  const steps: JourneyStep[] = [
    ...summaries.map((event): JourneyStep => ({ at: event.receivedAt, kind: 'received', event })),
    ...partitionSteps,
    ...outcomes.rows.map((row): JourneyStep => ({
      at: iso(row.recordedAt),
      kind: 'outcome',
      outcome: row.outcome,
      subjectId: row.subjectId,
      counters: row.counters,
      files: row.files,
      error: row.error,
    })),
  ];
  return steps.sort((a, b) => a.at.localeCompare(b.at) || ORDER[a.kind] - ORDER[b.kind]);
}

/**
 * Steps of the same millisecond in the order they happen: the listener's, then the worker's take,
 * its outcome and deliveries, then the run's end.
 */
const ORDER: Readonly<Record<JourneyStep['kind'], number>> = {
  received: 0,
  queued: 1,
  taken: 2,
  outcome: 3,
  attempt: 4,
  released: 5,
  finished: 6,
};

/** The event's delivery attempts, from its own day partition. */
async function attemptsOf(db: SqlQuery, event: HistoryEventSummary): Promise<JourneyStep[]> {
  const attempts = await db.query<AttemptRow>(
    `SELECT a.route, a.attempt, a.outcome, a.status, a.error, a.duration_ms AS "durationMs",
            a.started_at AS "startedAt", a.ended_at AS "endedAt", a.job_id AS "jobId"
       FROM attempts a
      WHERE a.patron = $1 AND a.event_received_at = $2::timestamptz
        AND a.event_id = $3 AND a.institution = $4`,
    [event.patron, event.receivedAt, event.eventId, event.institution],
  );
  return attempts.rows.map(attemptStep);
}

function attemptStep(row: AttemptRow): JourneyStep {
  return {
    at: iso(row.endedAt),
    kind: 'attempt',
    route: row.route,
    attempt: row.attempt,
    outcome: row.outcome,
    status: row.status,
    error: row.error,
    durationMs: row.durationMs,
    startedAt: iso(row.startedAt),
    path: row.jobId === null ? 'inline' : 'queued',
    jobId: row.jobId,
  };
}
