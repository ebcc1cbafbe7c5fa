import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import type { RunStage } from '../worker/event-run';
import type { CanonicalEvent } from '../events/canonical-event';
import type { HandlerOutcome, OutcomeSubject } from '../worker/handler-entry';
import type { HistoryRecorder } from './create-history-recorder';

/** Per action, how its entry reads a run's outcome and its subject (the handler entries'). */
export type OutcomesOf = ReadonlyMap<string, OutcomeReader>;

/** How a handler entry reads what a run came to, and the subject it is about. */
export interface OutcomeReader {
  readonly outcomeOf: (result: unknown) => HandlerOutcome;
  readonly subjectOf?: ((event: CanonicalEvent) => OutcomeSubject) | undefined;
}

/**
 * The stage recording what each job of an action in `outcomes` came to after its handler: the
 * outcome of its result, or the error once no attempt is left (an attempt that will be retried is
 * not an outcome), with the subject its entry names.
 */
export function outcomeStage(
  recorder: Pick<HistoryRecorder, 'outcome'>,
  outcomes: OutcomesOf,
): RunStage | undefined {
  if (outcomes.size === 0) return undefined;
  return async (run, next) => {
    const entry = outcomes.get(run.action);
    const { event, job } = run;
    if (entry === undefined || event === undefined) return next();
    const subject = entry.subjectOf?.(event);
    const about = subject === undefined ? { event } : { event, subject };
    try {
      const result = await next();
      await recorder.outcome({ ...about, ...entry.outcomeOf(result) });
      return result;
    } catch (error) {
      if (isLastAttempt(job, error)) {
        const message = error instanceof Error ? error.message : String(error);
        await recorder.outcome({ ...about, outcome: 'failed', error: message });
      }
      throw error;
    }
  };
}

function isLastAttempt(job: Job, error: unknown): boolean {
  return error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
