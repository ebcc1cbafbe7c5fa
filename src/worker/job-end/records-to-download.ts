import type { JobInstance } from '@svcws/client';
import type { ImportJobMatcher } from './import-job-matcher';

/**
 * Statuses of a run that loaded what it could: with success, with warnings, or with errors
 * ("Completed with Errors" still loads the records that passed; its counters say how many).
 * COMPLETED_NO_BULKS loaded nothing; FAILED and the aborted ones stopped before the end.
 */
const LOADED_STATUSES: ReadonlySet<string> = new Set([
  'COMPLETED_SUCCESS',
  'COMPLETED_WARNINGS',
  'COMPLETED_FAILED',
]);

/**
 * Statuses of a run that has not ended (docs/platform-shapes.md; spec §3 leaves them unshown). A
 * job_end can reach the worker before the instance reads as ended (the event and the read are two
 * paths on the platform side): such an instance is read again later, never taken as "nothing".
 */
export const UNFINISHED_STATUSES: ReadonlySet<string> = new Set([
  'QUEUED',
  'PENDING',
  'INITIALIZING',
  'RUNNING',
]);

export interface LineTypeToDownload {
  readonly lineType: string;
  /** The instance's counter for it: how many records the download should hold. */
  readonly expected: number;
}

export type DownloadDecision =
  | { readonly download: true; readonly lineTypes: readonly LineTypeToDownload[] }
  | { readonly download: false; readonly reason: string }
  /** The run has not ended yet: read the instance again later. */
  | { readonly download: 'later'; readonly reason: string };

/**
 * Whether the run loaded records worth fetching: a metadata-import job (IMPORT_JOB_MATCH) that
 * completed (or `later` while it still runs), with a counter above 0 for at least one of DOWNLOAD_LINE_TYPES. Only those line
 * types are downloaded: asking for an empty one would spend a call on an empty file.
 */
export function recordsToDownload(
  instance: JobInstance,
  { isImportJob, lineTypes }: { isImportJob: ImportJobMatcher; lineTypes: readonly string[] },
): DownloadDecision {
  if (!isImportJob(instance)) return { download: false, reason: 'not a metadata-import job' };
  const status = instance.status.value;
  if (UNFINISHED_STATUSES.has(status)) {
    return { download: 'later', reason: `the instance has not finished (status ${status})` };
  }
  if (!LOADED_STATUSES.has(status)) {
    return { download: false, reason: `status ${status} loads no records` };
  }
  const counters = new Map(
    (instance.counter ?? []).map((counter) => [counter.type.value, Number(counter.value)]),
  );
  const wanted = lineTypes
    .map((lineType) => ({ lineType, expected: counters.get(lineType) ?? 0 }))
    .filter(({ expected }) => Number.isFinite(expected) && expected > 0);
  if (wanted.length === 0) {
    return { download: false, reason: `no records counted for ${lineTypes.join(', ')}` };
  }
  return { download: true, lineTypes: wanted };
}
