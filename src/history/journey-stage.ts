import { runOutcomeOf } from '../worker/run-outcome';
import type { RunStage } from '../worker/event-run';
import type { HistoryRecorder } from './create-history-recorder';
import type { StepOutcome } from './history-record';

/**
 * The stage keeping each run of an event's job in its journey (docs/history.md, "The
 * journey"): `taken` as the run starts — BullMQ's add time (`timestamp`: the listener's, or the
 * spool drainer's, or the reconciliation's) and take time (`processedOn`, this worker's clock) —
 * and `ended` once the run's work is done (the steps' inline deliveries, the handler and its
 * outcome), with how it ended. The taken record is appended in the same tick as the event's own
 * record (start-history.ts recordedWith), so both go to Redis in one XADD (outbox-appender.ts);
 * the ended one is awaited before the job completes, as every record is. A run whose worker died
 * has no `ended`: the journey says so, it does not make a time up.
 */
export function journeyStage(recorder: Pick<HistoryRecorder, 'step'>): RunStage {
  return async (run, next) => {
    const { event, job, jobId, signal } = run;
    // A job that is no event is not recorded (event-step.ts refuses it).
    if (event === undefined) return next();
    const runNumber = Math.max(job.attemptsStarted, job.attemptsMade + 1);
    const ids = jobId === undefined ? { event, run: runNumber } : { event, run: runNumber, jobId };
    const taken = recorder.step({
      ...ids,
      step: 'taken',
      at: new Date(job.processedOn ?? Date.now()),
      queuedAt: new Date(job.timestamp),
    });
    let outcome: StepOutcome = 'completed';
    try {
      return await next();
    } catch (error) {
      outcome = runOutcomeOf(job, error, signal);
      throw error;
    } finally {
      await taken;
      await recorder.step({ ...ids, step: 'ended', at: new Date(), outcome });
    }
  };
}
