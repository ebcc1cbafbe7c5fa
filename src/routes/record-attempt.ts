import type { CanonicalEvent } from '../events/canonical-event';
import type { HistoryRecorder } from '../history';
import { DeliveryError } from './delivery-error';

/** The outcome of one attempt as the history keeps it (docs/history.md). */
export type RecordedOutcome = 'delivered' | 'retrying' | 'failed';

/** One attempt, for the event history's outbox: where, which, when, and how it ended. */
export interface AttemptRecord {
  readonly route: string;
  readonly jobId?: string;
  readonly number: number;
  readonly startedAt: Date;
  readonly durationMs: number;
}

/**
 * One outbox XADD per attempt (never PostgreSQL, create-history-recorder.ts): awaited, so the
 * record is kept before the job or the event's fan-out ends.
 */
export async function recordAttempt(
  history: Pick<HistoryRecorder, 'attempt'> | undefined,
  event: CanonicalEvent,
  attempt: AttemptRecord,
  outcome: RecordedOutcome,
  error?: unknown,
): Promise<void> {
  if (history === undefined) return;
  await history.attempt({
    event,
    route: attempt.route,
    ...(attempt.jobId === undefined ? {} : { jobId: attempt.jobId }),
    attempt: attempt.number,
    startedAt: attempt.startedAt,
    endedAt: new Date(),
    outcome,
    ...statusAndErrorOf(error),
    durationMs: attempt.durationMs,
  });
}

function statusAndErrorOf(error: unknown): { status?: number; error?: string } {
  if (error === undefined) return {};
  const message = error instanceof Error ? error.message : String(error);
  const status = error instanceof DeliveryError ? error.status : undefined;
  return { error: message, ...(status === undefined ? {} : { status }) };
}
