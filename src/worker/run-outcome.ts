import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { decideFailure } from './failure-policy';

/**
 * How one run of an event's job ended: the journey's `ended` (src/history/journey-stage.ts) and
 * the run's end line (run-end-stage.ts) say it with these same words.
 */
export type RunOutcome = 'completed' | 'failed' | 'retrying' | 'rate-limited' | 'aborted';

/**
 * How a run that threw ended, as the failure policy will decide it (create-worker.ts): aborted
 * when the worker cancelled it, rate-limited for a 429, failed when no attempt is left or none
 * would help, retrying otherwise.
 */
export function runOutcomeOf(
  job: Job,
  error: unknown,
  signal: AbortSignal | undefined,
): RunOutcome {
  if (signal?.aborted === true) return 'aborted';
  const decision = decideFailure(error);
  if (decision.kind === 'rate-limit') return 'rate-limited';
  if (decision.kind === 'unrecoverable' || error instanceof UnrecoverableError) return 'failed';
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1) ? 'failed' : 'retrying';
}
