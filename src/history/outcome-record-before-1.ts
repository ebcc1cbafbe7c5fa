import { isRecord } from '../is-record';

/**
 * An outcome record as a worker before the generic outcome record wrote it to the outbox (type
 * `job_end`, its subject as `jobInstanceId` and `jobName`), read as today's (type `outcome`), so
 * records left in Redis across an upgrade are still written. Any other value is returned as it is.
 */
export function currentRecordOf(value: unknown): unknown {
  if (!isRecord(value) || value.type !== OLD_TYPE) return value;
  const { jobInstanceId, jobName, ...rest } = value;
  return {
    ...rest,
    type: 'outcome',
    action: OLD_TYPE,
    ...(jobInstanceId === undefined ? {} : { subjectId: jobInstanceId }),
    ...(jobName === undefined ? {} : { subjectName: jobName }),
  };
}

/** The one action whose outcome was recorded before the record was generic. */
const OLD_TYPE = 'job_end';
