import type { JourneyStep } from './history-journey';
import type { StepOutcome } from './history-record';
import type { HistoryEventSummary } from './search-history';
import type { SqlQuery } from './sql-executor';

interface StepRow {
  jobId: string | null;
  run: number;
  queuedAt: Date | string | null;
  takenAt: Date | string | null;
  endedAt: Date | string | null;
  outcome: StepOutcome | null;
}

/** A run of the job as its rows tell it (its take and its end may be in two rows). */
interface Run {
  jobId: string | null;
  run: number;
  queuedAt?: string;
  takenAt?: string;
  endedAt?: string;
  outcome?: StepOutcome;
}

const iso = (time: Date | string): string => new Date(time).toISOString();

/** Outcomes that end the event's processing; the others give the job back to the queue. */
const FINAL: ReadonlySet<StepOutcome> = new Set(['completed', 'failed']);

/**
 * The worker's steps of one event (journey-stage.ts), read from the event's own day
 * partition of event_steps: each distinct add to the queue (a job taken twice was queued once),
 * each take with the end of its run — null when none was recorded (still running, or its worker
 * stopped: no time is made up) — and each end, `finished` or `released`.
 */
export async function journeyStepsOf(
  db: SqlQuery,
  event: HistoryEventSummary,
): Promise<JourneyStep[]> {
  const result = await db.query<StepRow>(
    `SELECT s.job_id AS "jobId", s.run, s.queued_at AS "queuedAt", s.taken_at AS "takenAt",
            s.ended_at AS "endedAt", s.outcome
       FROM event_steps s
      WHERE s.patron = $1 AND s.event_received_at = $2::timestamptz
        AND s.event_id = $3 AND s.institution = $4`,
    [event.patron, event.receivedAt, event.eventId, event.institution],
  );
  const by = event.recovered ? 'reconciliation' : 'listener';
  const queued = new Map<string, JourneyStep>();
  const steps: JourneyStep[] = [];
  for (const run of runsOf(result.rows)) {
    const { jobId } = run;
    if (run.queuedAt !== undefined) {
      const at = run.queuedAt;
      queued.set(`${jobId ?? ''}\u0000${at}`, { at, kind: 'queued', by, jobId });
    }
    if (run.takenAt !== undefined) {
      const endedAt = run.endedAt ?? null;
      steps.push({ at: run.takenAt, kind: 'taken', jobId, run: run.run, endedAt });
    }
    if (run.endedAt !== undefined) {
      const outcome = run.outcome ?? 'completed';
      const kind = FINAL.has(outcome) ? 'finished' : 'released';
      steps.push({ at: run.endedAt, kind, outcome, jobId, run: run.run });
    }
  }
  return [...queued.values(), ...steps];
}

/** The rows of each run (job id and run number) read together. */
function runsOf(rows: readonly StepRow[]): Run[] {
  const runs = new Map<string, Run>();
  for (const row of rows) {
    const key = `${row.jobId ?? ''}\u0000${String(row.run)}`;
    const run = runs.get(key) ?? { jobId: row.jobId, run: row.run };
    runs.set(key, run);
    if (row.queuedAt !== null) run.queuedAt ??= iso(row.queuedAt);
    if (row.takenAt !== null) run.takenAt ??= iso(row.takenAt);
    if (row.endedAt !== null) {
      run.endedAt ??= iso(row.endedAt);
      if (row.outcome !== null) run.outcome ??= row.outcome;
    }
  }
  return [...runs.values()];
}
