import type { Logger } from '../../logger';
import { isRecord } from '../../is-record';
import type { Dispatch } from '../handler-registry';
import { eventIdOf } from '../handler-registry';
import type { JobEndSeen } from './job-end-seen';

/**
 * A job_end is processed once per instance, whether its webhook or the reconciliation brought it,
 * in whichever order: the job that claims the instance first (job-end-seen.ts) goes on, another
 * job_end of that instance completes without work — before the event steps, so it is neither
 * routed nor recorded again. Any other action, and a job_end naming no instance (its handler
 * refuses it), pass as they are.
 */
export function withJobEndOnce(dispatch: Dispatch, seen: JobEndSeen, logger: Logger): Dispatch {
  return async (job, signal) => {
    const instanceId = job.name.toLowerCase() === 'job_end' ? instanceIdOf(job.data) : undefined;
    if (instanceId === undefined || job.id === undefined) return dispatch(job, signal);
    if (await seen.claim(instanceId, job.id)) return dispatch(job, signal);
    logger.info(
      { eventId: eventIdOf(job.data), action: 'job_end', jobId: job.id, instanceId },
      'job_end of an instance already taken up: completed without work',
    );
    return { outcome: 'duplicate', instanceId };
  };
}

/** `job_instance.id`, read defensively: the payload has not been checked yet. */
function instanceIdOf(data: unknown): string | undefined {
  const subject = isRecord(data) ? data.job_instance : undefined;
  const id = isRecord(subject) ? subject.id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
