import type { Logger } from '../logger';
import type { EventRun, RunStage } from './event-run';
import { runOutcomeOf } from './run-outcome';
import type { RunOutcome } from './run-outcome';

export interface RunEndStageOptions {
  /** A logger that binds no `institution` (the line names it itself). */
  readonly logger: Logger;
  /** The queue's member code (INSTITUTIONS_FILE); the event's own code without one. */
  readonly institution?: string | undefined;
}

/**
 * The stage writing one info line as each run of an event's job ends, `event run ended`
 * (docs/logs.md, "The worker's run"): how it ended (the journey's words, run-outcome.ts), how long
 * it took and waited, the routes it matched and its attempt. Around every later stage, so a run a
 * guard answered or a handler failed ends with the same one line.
 */
export function runEndStage({ logger, institution }: RunEndStageOptions): RunStage {
  return async (run, next) => {
    const started = performance.now();
    let outcome: RunOutcome = 'completed';
    try {
      return await next();
    } catch (error) {
      outcome = runOutcomeOf(run.job, error, run.signal);
      throw error;
    } finally {
      const durationMs = Math.round(performance.now() - started);
      logger.info(runEndFields(run, { institution, outcome, durationMs }), 'event run ended');
    }
  };
}

function runEndFields(
  run: EventRun,
  end: { institution: string | undefined; outcome: RunOutcome; durationMs: number },
): Record<string, unknown> {
  const { job, event } = run;
  return {
    institution: end.institution ?? event?.institution?.value,
    action: run.action,
    event: event?.event?.value,
    eventId: run.eventId,
    queueJobId: run.jobId,
    outcome: end.outcome,
    durationMs: end.durationMs,
    // From the job's add (the listener's, the spool drain's, a replay's) to this run's take:
    // a later attempt's wait includes the earlier runs and their backoff.
    queueWaitMs: Math.max(0, (job.processedOn ?? Date.now()) - job.timestamp),
    ...(run.notes.routes === undefined ? {} : { routes: run.notes.routes }),
    attempts: job.attemptsMade + 1,
    maxAttempts: job.opts.attempts ?? 1,
  };
}
