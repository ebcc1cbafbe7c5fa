import type { JourneyStep } from './history-journey';
import type { StepOutcome } from './history-record';
import type { HistoryEventSummary } from './search-history';
import type { SqlQuery } from './sql-executor';

interface StepRow {
  step: 'taken' | 'ended';
  jobId: string | null;
  run: number;
  at: Date | string;
  queuedAt: Date | string | null;
  outcome: StepOutcome | null;
}

const iso = (time: Date | string): string => new Date(time).toISOString();

/** Outcomes that end the event's processing; the others give the job back to the queue. */
const FINAL: ReadonlySet<StepOutcome> = new Set(['completed', 'failed']);

/**
 * The worker's steps of one event (with-journey-recorded.ts), read from the event's own day
 * partition of event_steps: each distinct add to the queue (a job taken twice was queued once),
 * each take with the end of its run — null when none was recorded (still running, or its worker
 * stopped: no time is made up) — and each end, `finished` or `released`.
 */
export async function journeyStepsOf(
  db: SqlQuery,
  event: HistoryEventSummary,
): Promise<JourneyStep[]> {
  const result = await db.query<StepRow>(
    `SELECT s.step, s.job_id AS "jobId", s.run, s.at, s.queued_at AS "queuedAt", s.outcome
       FROM event_steps s
      WHERE s.patron = $1 AND s.event_received_at = $2::timestamptz
        AND s.event_id = $3 AND s.institution = $4`,
    [event.patron, event.receivedAt, event.eventId, event.institution],
  );
  const ends = new Map<string, StepRow>();
  for (const row of result.rows) if (row.step === 'ended') ends.set(runKey(row), row);
  const queued = new Map<string, JourneyStep>();
  const steps: JourneyStep[] = [];
  for (const row of result.rows) {
    if (row.step === 'ended') {
      steps.push(endStep(row));
      continue;
    }
    const ended = ends.get(runKey(row));
    steps.push({
      at: iso(row.at),
      kind: 'taken',
      jobId: row.jobId,
      run: row.run,
      endedAt: ended === undefined ? null : iso(ended.at),
    });
    if (row.queuedAt === null) continue;
    const at = iso(row.queuedAt);
    const by = event.recovered ? 'reconciliation' : 'listener';
    queued.set(`${row.jobId ?? ''}\u0000${at}`, { at, kind: 'queued', by, jobId: row.jobId });
  }
  return [...queued.values(), ...steps];
}

function runKey(row: StepRow): string {
  return `${row.jobId ?? ''}\u0000${String(row.run)}`;
}

function endStep(row: StepRow): JourneyStep {
  const outcome = row.outcome ?? 'completed';
  return {
    at: iso(row.at),
    kind: FINAL.has(outcome) ? 'finished' : 'released',
    outcome,
    jobId: row.jobId,
    run: row.run,
  };
}
