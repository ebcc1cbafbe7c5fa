import { isRecord } from '../../is-record';
import { jobIdOfInstance } from './job-id-of-instance';

/**
 * Whether a job_end (its data as queued) is one that an expected-events rule naming a job
 * (`jobEnd`, lower case) expects: by the job id of its instance, its job's name, or the instance
 * name that starts with the job's (`Import MARC records - 11/06/…`, when it has no job_info).
 */
export function jobEndExpectedBy(data: unknown, wanted: string): boolean {
  const subject = isRecord(data) && isRecord(data.job_instance) ? data.job_instance : undefined;
  if (subject === undefined) return false;
  const info = isRecord(subject.job_info) ? subject.job_info : {};
  const jobId = jobIdOfInstance({
    job_info: { id: typeof info.id === 'string' ? info.id : undefined },
    link: typeof subject.link === 'string' ? subject.link : undefined,
  });
  const jobName = typeof info.name === 'string' ? info.name : undefined;
  const instanceName = typeof subject.name === 'string' ? subject.name.toLowerCase() : '';
  return (
    jobId?.toLowerCase() === wanted ||
    jobName?.toLowerCase() === wanted ||
    instanceName.startsWith(`${wanted} - `)
  );
}
