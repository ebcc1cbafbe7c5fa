import { Worker } from 'bullmq';
import type { Job, Span } from 'bullmq';

/** BullMQ's code for a finishing command refused because the job's lock is missing. */
const LOCK_MISSING = -2;
/** BullMQ's token that finishes a job without its lock (its scripts skip the lock check). */
const WITHOUT_LOCK = '0';

/**
 * A BullMQ Worker that records a job it finished even when Redis lost the job's lock meanwhile.
 *
 * Redis expires keys by the wall clock, so a Redis away longer than the lock (30 s) comes back
 * without it, and the completion this process sent while it was away is refused ("Missing lock").
 * BullMQ then leaves the job in `active`, and its stalled check runs the job again: an event
 * delivered a second time to every route it had reached (test/integration/worker/redis-outage-mid-job.test.ts).
 * The work is done here, so the completion is recorded without the lock, as BullMQ's own scripts
 * allow; they still move the job only if it is active, so a job that the stalled check has given
 * back to the queue meanwhile is left to the run it gets there (at least once, as before).
 */
export class OutageSafeWorker<DataType, ResultType, NameType extends string> extends Worker<
  DataType,
  ResultType,
  NameType
> {
  protected override async handleCompleted(
    result: ResultType,
    job: Job<DataType, ResultType, NameType>,
    token: string,
    fetchNextCallback?: () => boolean,
    span?: Span,
  ): Promise<Job<DataType, ResultType, NameType>> {
    try {
      return await super.handleCompleted(result, job, token, fetchNextCallback, span);
    } catch (error) {
      if ((error as { code?: unknown }).code !== LOCK_MISSING) throw error;
      // Not fetching the next job here: that would lock it with this token too.
      await job.moveToCompleted(result, WITHOUT_LOCK, false);
      this.emit('completed', job, result, 'active');
      // No next job (what the base method gives when it fetched none): the main loop fetches one.
      return this.nextJobFromJobData(undefined, undefined, token);
    }
  }
}

/** BullMQ's error for a lock it could not renew (lock-manager.js), sent with lockRenewalFailed. */
export function isLockRenewalError(error: Error): boolean {
  return error.message.startsWith('could not renew lock for job ');
}
