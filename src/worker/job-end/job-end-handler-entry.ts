import { defineHandler } from '../handler-registry';
import type { HandlerEntry } from '../handler-entry';
import { createJobEndHandler } from './create-job-end-handler';
import { createImportJobMatcher } from './import-job-matcher';
import { jobEndExpectedBy } from './job-end-expected-by';
import { jobEndOnce } from './job-end-once';
import { jobEndOutcomeOf } from './job-end-outcome-of';
import { jobEndSeenOf, startReconciliation } from './start-reconciliation';
import { sweepRecordsDir } from './sweep-records-dir';
import { isRecord } from '../../is-record';
import type { OutcomeSubject } from '../handler-entry';

/**
 * The job_end room's entry in the handler list: downloads the records an import job loaded, keeps
 * what each run came to in the history, sweeps a killed run's leftovers from RECORDS_DIR at start,
 * takes up each instance's job_end once (job-end-once.ts) and reconciles the job_ends the
 * webhooks missed (start-reconciliation.ts); tells the expected events which job_ends a rule
 * naming a job means.
 */
export const jobEndHandlerEntry: HandlerEntry = {
  action: 'job_end',
  create: ({ config, client }) =>
    defineHandler(
      createJobEndHandler({
        client,
        isImportJob: createImportJobMatcher(config.IMPORT_JOB_MATCH),
        recordsDir: config.RECORDS_DIR,
        format: config.DOWNLOAD_FORMAT,
        lineTypes: config.DOWNLOAD_LINE_TYPES,
        idleTimeoutMs: config.SVC_TIMEOUT_MS,
      }),
    ),
  outcomeOf: jobEndOutcomeOf,
  startUp: async ({ config, logger }) => {
    await sweepRecordsDir({
      recordsDir: config.RECORDS_DIR,
      idleTimeoutMs: config.SVC_TIMEOUT_MS,
      logger,
    });
  },
  subjectOf: (event) => subjectOf(event.job_instance),
  guard: ({ connection, queue }) => jobEndOnce(jobEndSeenOf(connection, queue), queue.logger),
  background: (deps) => startReconciliation(deps),
  expectedBy: jobEndExpectedBy,
};

/** The instance a job_end's outcome is about: its id and name as the event gives them. */
function subjectOf(instance: unknown): OutcomeSubject {
  if (!isRecord(instance)) return {};
  const { id, name } = instance;
  return {
    ...(typeof id === 'string' ? { id } : {}),
    ...(typeof name === 'string' ? { name } : {}),
  };
}
