/**
 * The instance a job_end names still reads as running. Not permanent: the worker retries it with
 * the job's backoff, and only when the attempts are spent does the job fail, with this reason.
 */
export class InstanceNotFinishedError extends Error {
  constructor(
    readonly instanceId: string,
    readonly status: string,
  ) {
    super(`job instance ${instanceId} has not finished (status ${status}): read again later`);
    this.name = 'InstanceNotFinishedError';
  }
}
