import { defineHandler } from '../handler-registry';
import type { HandlerEntry } from '../handler-entry';
import { createJobEndHandler } from './create-job-end-handler';
import { createImportJobMatcher } from './import-job-matcher';

/** The job_end room's entry in the handler list: downloads the records an import job loaded. */
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
};
