import type { Logger } from '../../logger';
import { isRecord } from '../../is-record';
import type { RunStage } from '../event-run';
import type { JobEndSeen } from './job-end-seen';

/**
 * A job_end is processed once per instance, whether its webhook or the reconciliation brought it,
 * in whichever order: the job that claims the instance first (job-end-seen.ts) goes on, another
 * job_end of that instance completes without work — before the event steps, so it is neither
 * routed nor recorded again. The guard of job_end's runs only (event-run-stages.ts); a job_end
 * naming no instance (its handler refuses it) passes as it is.
 */
export function jobEndOnce(seen: JobEndSeen, logger: Logger): RunStage {
  return async (run, next) => {
    const instanceId = instanceIdOf(run.event?.job_instance);
    if (instanceId === undefined || run.jobId === undefined) return next();
    if (await seen.claim(instanceId, run.jobId)) return next();
    logger.info(
      { eventId: run.eventId, action: run.action, queueJobId: run.jobId, instanceId },
      'job_end of an instance already taken up: completed without work',
    );
    return { outcome: 'duplicate', instanceId };
  };
}

/** `job_instance.id`: read defensively, as the run's event is the handler's only when it passed. */
function instanceIdOf(subject: unknown): string | undefined {
  const id = isRecord(subject) ? subject.id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
