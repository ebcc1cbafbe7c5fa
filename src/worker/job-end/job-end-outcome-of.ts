import { isRecord } from '../../is-record';
import type { HandlerOutcome } from '../handler-entry';
import type { JobEndResult } from './create-job-end-handler';

/**
 * job_end's outcome after its handler (create-job-end-handler.ts): what it came to and the files
 * it stored; a result of another shape is "completed".
 */
export function jobEndOutcomeOf(result: unknown): HandlerOutcome {
  if (!isRecord(result) || typeof result.outcome !== 'string') return { outcome: 'completed' };
  const { outcome, counters, files } = result as Partial<JobEndResult> & { outcome: string };
  return {
    outcome,
    ...(counters === undefined ? {} : { counters }),
    ...(files === undefined
      ? {}
      : {
          files: files.map((file) => ({
            path: file.file,
            bytes: file.bytes ?? 0,
            ...(file.records === undefined ? {} : { records: file.records }),
          })),
        }),
  };
}
