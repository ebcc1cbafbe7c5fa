import type { Job } from 'bullmq';
import { isRecord } from '../../is-record';

/** `institution.value` of the event a job carries (event and route jobs alike), or null. */
export function jobInstitution(job: Job): string | null {
  const data: unknown = job.data;
  if (!isRecord(data) || !isRecord(data.institution)) return null;
  const value = data.institution.value;
  return typeof value === 'string' ? value : null;
}

/** The event id a job carries, or null. */
export function jobEventId(job: Job): string | null {
  const data: unknown = job.data;
  return isRecord(data) && typeof data.id === 'string' ? data.id : null;
}

export function isoOrNull(epochMs: number | undefined): string | null {
  return epochMs === undefined || epochMs === 0 ? null : new Date(epochMs).toISOString();
}
