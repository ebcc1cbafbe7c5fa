import { Job } from 'bullmq';
import type { Queue } from 'bullmq';
import type { CanonicalEvent } from '../events/canonical-event';
import type { Logger } from '../logger';
import type { AttemptOutcome } from './attempt-delivery';
import type { RouteJobOptions } from './route-job-options';
import { errField } from '../err-field';

/** An inline attempt past its deadline, and the route job that was added held behind it. */
export interface LateAttempt {
  readonly queue: Queue;
  /** The route job's id (the event job's). */
  readonly jobId: string;
  /** The attempt's outcome once its destination answers or gives up (inline-route.ts). */
  readonly settled: Promise<AttemptOutcome>;
  /** The options the route job takes after an inline attempt with this outcome (fan-out's). */
  readonly jobOptionsAfter: (outcome: AttemptOutcome) => RouteJobOptions | undefined;
}

/**
 * The route job of a late inline attempt follows the attempt's outcome (docs/routing.md, "How a
 * delivery is scheduled"): removed when it delivered, so the event is not delivered twice; due
 * after its delay when another attempt may help; put in the failed set when the attempt ended the
 * delivery. Whatever goes wrong here leaves the held job as it is: it delivers once its hold ends
 * (at least once), and the line says so.
 */
export async function settleLateAttempt(late: LateAttempt, logger: Logger): Promise<void> {
  const outcome = await late.settled.catch(() => undefined);
  // No outcome known (its record failed): the held job delivers when its hold ends.
  if (outcome === undefined) return;
  const fields = { queue: late.queue.name, queueJobId: late.jobId };
  let job: Job<CanonicalEvent> | undefined;
  let opts: RouteJobOptions | undefined;
  try {
    job = await Job.fromId<CanonicalEvent>(late.queue, late.jobId);
    // Replayed, removed or already run by an operator: nothing waits for this attempt.
    if (job === undefined || !(await job.isDelayed())) return;
    opts = late.jobOptionsAfter(outcome);
    if (opts?.inlineFailure === undefined) {
      await (opts === undefined ? job.remove() : job.changeDelay(opts.delay ?? 0));
      return;
    }
    await job.remove();
  } catch (error) {
    logger.warn(
      { ...fields, err: errField(error) },
      'late inline attempt: its route job is left to run when its hold ends',
    );
    return;
  }
  await intoFailedSet(late, job, opts, logger);
}

/** The attempt ended the delivery: a job in its place that goes straight to the failed set. */
async function intoFailedSet(
  late: LateAttempt,
  job: Job<CanonicalEvent>,
  opts: RouteJobOptions,
  logger: Logger,
): Promise<void> {
  try {
    await late.queue.add(job.name, job.data, { ...opts, jobId: late.jobId });
  } catch (error) {
    logger.error(
      { eventId: job.data.id, queue: late.queue.name, err: errField(error) },
      'late inline attempt failed and its delivery is not in the failed set: replay it from the history',
    );
  }
}
