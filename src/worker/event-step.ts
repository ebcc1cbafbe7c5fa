import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import type { CanonicalEvent } from '../events/canonical-event';
import type { RunStage } from './event-run';

/**
 * Work done for every event before its handler, whatever its action (the event recorded, routing's
 * fan-out: the `steps` of event-run-stages.ts). A step must be safe to run again: an event job taken over
 * after its worker died runs every step again.
 */
export type EventStep = (event: CanonicalEvent, jobId: string) => Promise<StepNotes | undefined>;

/** What a step tells the run's end line (run-end-stage.ts), kept on the run's notes. */
export interface StepNotes {
  /** The names of the routes the event matched (routing's fan-out). */
  readonly routes?: readonly string[];
}

/**
 * The job's progress once its steps ran and its handler then failed: the retries of the handler
 * do not run the steps again (routing's first attempts are made in a step, and a delivery made
 * must not be made again for each retry of a download).
 */
const STEPS_DONE = { eventSteps: 'done' } as const;

function stepsDone(job: Job): boolean {
  const { progress } = job;
  return (
    typeof progress === 'object' &&
    progress !== null &&
    'eventSteps' in progress &&
    progress.eventSteps === 'done'
  );
}

/**
 * The run's steps (the event recorded, routing's fan-out), once per job: an event whose handler
 * has work still does it after them, and is routed too. A step that throws fails the run as a handler would
 * (the failure policy decides). When the handler fails after the steps ran, the job records it
 * (one command, on that path only), and its later runs go straight to the handler.
 */
export function stepsOnce(steps: readonly EventStep[]): RunStage | undefined {
  if (steps.length === 0) return undefined;
  return async (run, next) => {
    const { event, job, jobId } = run;
    if (event === undefined || jobId === undefined) {
      throw new UnrecoverableError('job data is not a canonical event: not routed');
    }
    const done = stepsDone(job);
    if (!done) {
      for (const step of steps) Object.assign(run.notes, await step(event, jobId));
    }
    try {
      return await next();
    } catch (error) {
      if (!done) await recordStepsDone(job);
      throw error;
    }
  };
}

async function recordStepsDone(job: Job): Promise<void> {
  try {
    await job.updateProgress(STEPS_DONE);
  } catch {
    // Not recorded (Redis away): the next run makes the steps again, which they allow.
  }
}
