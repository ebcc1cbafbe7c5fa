import type { StepRecord } from './history-record';

/** One row of event_steps: a run of an event's job, as much of it as one batch holds. */
export interface StepRow {
  readonly id: string;
  readonly patron: boolean;
  readonly eventReceivedAt: string;
  readonly institution: string;
  readonly eventId: string;
  readonly jobId?: string;
  readonly run: number;
  queuedAt?: string;
  takenAt?: string;
  endedAt?: string;
  outcome?: string;
}

/**
 * The rows of a batch's step records: a run's take and end in the same batch (the usual case:
 * the writer reads about a thousand records at once) become one row, keyed by the first record's
 * outbox id, so the journey costs one row per event, not two. Written again, a batch gives the
 * same rows and ids (ON CONFLICT DO NOTHING); grouped otherwise (a batch taken over), the rows of
 * one run may overlap, and the journey reads a run's rows together.
 */
export function stepRowsOf(steps: readonly (StepRecord & { id: string })[]): StepRow[] {
  const runs = new Map<string, StepRow>();
  for (const step of steps) {
    const key = [
      step.patron,
      step.eventReceivedAt,
      step.institution,
      step.eventId,
      step.jobId,
      step.run,
    ]
      .map(String)
      .join('\u0000');
    let row = runs.get(key);
    if (row === undefined) {
      const { id, patron, eventReceivedAt, institution, eventId, jobId, run } = step;
      row = {
        id,
        patron,
        eventReceivedAt,
        institution,
        eventId,
        run,
        ...(jobId === undefined ? {} : { jobId }),
      };
      runs.set(key, row);
    }
    if (step.step === 'taken') {
      row.takenAt = step.at;
      if (step.queuedAt !== undefined) row.queuedAt = step.queuedAt;
    } else {
      row.endedAt = step.at;
      if (step.outcome !== undefined) row.outcome = step.outcome;
    }
  }
  return [...runs.values()];
}
