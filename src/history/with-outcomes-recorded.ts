import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { safeParseCanonicalEvent } from '../events/canonical-event';
import type { HandlerOutcome } from '../worker/handler-entry';
import type { Dispatch } from '../worker/handler-registry';
import type { HistoryRecorder } from './create-history-recorder';

/** Per action, how its handler's result becomes an outcome (the handler entries' `outcomeOf`). */
export type OutcomesOf = ReadonlyMap<string, (result: unknown) => HandlerOutcome>;

/**
 * The dispatch with what each job of an action in `outcomes` came to recorded after its handler:
 * the outcome of its result, or the error once no attempt is left (an attempt that will be
 * retried is not an outcome).
 */
export function withOutcomesRecorded(
  dispatch: Dispatch,
  recorder: HistoryRecorder,
  outcomes: OutcomesOf,
): Dispatch {
  if (outcomes.size === 0) return dispatch;
  return async (job, signal) => {
    const outcomeOf = outcomes.get(job.name.toLowerCase());
    if (outcomeOf === undefined) return dispatch(job, signal);
    const event = safeParseCanonicalEvent(job.data);
    if (!event.success) return dispatch(job, signal);
    try {
      const result = await dispatch(job, signal);
      await recorder.jobEnd({ event: event.data, ...outcomeOf(result) });
      return result;
    } catch (error) {
      if (isLastAttempt(job, error)) {
        const message = error instanceof Error ? error.message : String(error);
        await recorder.jobEnd({ event: event.data, outcome: 'failed', error: message });
      }
      throw error;
    }
  };
}

function isLastAttempt(job: Job, error: unknown): boolean {
  return error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
