import type { SvcClient } from '../../svc-client/create-svc-client';
import type { JobInstance } from '../../svc-client/job-instance';
import type { EventHandler } from '../handler-registry';
import type { ImportJobMatcher } from '../import-job-matcher';
import { jobIdOfInstance } from '../job-id-of-instance';
import { recordsPath } from '../records-path';
import type { DownloadFormat } from '../records-path';
import { recordsToDownload } from '../records-to-download';
import { storeRecords } from '../store-records';
import { JobEndEvent } from './job-end-event';

const INSTANCE_ROUTE = 'GET /conf/jobs/{job_id}/instances/{instance_id}';

export interface JobEndHandlerOptions {
  readonly client: Pick<SvcClient, 'request' | 'downloadStream'>;
  readonly isImportJob: ImportJobMatcher;
  /** RECORDS_DIR */
  readonly recordsDir: string;
  /** DOWNLOAD_FORMAT */
  readonly format: DownloadFormat;
  /** DOWNLOAD_LINE_TYPES */
  readonly lineTypes: readonly string[];
  /** A download body silent this long is abandoned and retried; 60 s unless given. */
  readonly idleTimeoutMs?: number;
}

/** The folder name of events that carry no institution code. */
export const UNKNOWN_INSTITUTION = 'unknown-institution';

export interface StoredFile {
  readonly lineType: string;
  readonly file: string;
  readonly stored: boolean;
  readonly records?: number;
  readonly expected: number;
  readonly bytes?: number;
}

export interface JobEndResult {
  readonly outcome: 'stored' | 'skipped';
  readonly reason?: string;
  readonly jobId: string | undefined;
  readonly instanceId: string;
  readonly status: string;
  readonly files: readonly StoredFile[];
  readonly apiCalls: number;
}

/**
 * job_end (issue 5): fetch the instance (spec §4.3; `ALL` when the event does not name the job),
 * decide whether it loaded records, and stream each wanted line type into RECORDS_DIR. Budget:
 * one call for the instance, one per line type downloaded, nothing else.
 */
export function createJobEndHandler(options: JobEndHandlerOptions): EventHandler<JobEndEvent> {
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  return {
    action: 'job_end',
    payload: JobEndEvent,
    async handle(event, { job, signal, logger }) {
      const started = performance.now();
      let apiCalls = 0;
      const instanceId = event.job_instance.id;
      const eventJobId = jobIdOfInstance(event.job_instance);
      const log = logger.child({ eventId: event.id, action: event.action, instanceId });

      apiCalls += 1;
      const instance: JobInstance = await options.client.request(INSTANCE_ROUTE, {
        // spec §4.3: "job_id may be the word ALL" — for an event that names only the instance.
        path: { job_id: eventJobId ?? 'ALL', instance_id: instanceId },
        signal,
      });
      const jobId = jobIdOfInstance(instance) ?? eventJobId;
      const jobName = instance.job_info?.name;
      const status = instance.status.value;
      log.info(
        {
          jobId,
          jobName,
          status,
          counters: Object.fromEntries(
            (instance.counter ?? []).map((counter) => [counter.type.value, counter.value]),
          ),
          alerts: (instance.alert ?? []).map((alert) => alert.value),
        },
        'job instance fetched',
      );

      const decision = recordsToDownload(instance, options);
      const summary = (files: readonly StoredFile[], extra: Record<string, unknown>) => ({
        jobId,
        jobName,
        status,
        records: files.reduce((sum, file) => sum + (file.records ?? 0), 0),
        bytes: files.reduce((sum, file) => sum + (file.bytes ?? 0), 0),
        file: files.length === 1 ? files[0]?.file : undefined,
        files: files.length > 1 ? files : undefined,
        durationMs: Math.round(performance.now() - started),
        apiCalls,
        ...extra,
      });
      if (!decision.download || jobId === undefined) {
        const reason = decision.download ? 'the instance names no job id' : decision.reason;
        log.info(summary([], { reason }), 'job_end: nothing to download');
        return { outcome: 'skipped', reason, jobId, instanceId, status, files: [], apiCalls };
      }

      const files: StoredFile[] = [];
      for (const { lineType, expected } of decision.lineTypes) {
        const file = recordsPath(options.recordsDir, {
          institution: event.institution?.value ?? UNKNOWN_INSTITUTION,
          jobId,
          instanceId,
          lineType,
          format: options.format,
        });
        const result = await storeRecords({
          client: {
            downloadStream: (params, callOptions) => {
              apiCalls += 1;
              return options.client.downloadStream(params, callOptions);
            },
          },
          params: {
            job_id: jobId,
            instance_id: instanceId,
            download_format: options.format,
            line_type: lineType,
          },
          file,
          tempTag: job.id ?? 'job',
          idleTimeoutMs,
          signal,
        });
        if (result.stored && result.records !== expected) {
          log.warn(
            { jobId, lineType, records: result.records, expected },
            'records counted differ from the instance counter',
          );
        }
        files.push(
          result.stored
            ? {
                lineType,
                file,
                stored: true,
                expected,
                records: result.records,
                bytes: result.bytes,
              }
            : { lineType, file, stored: false, expected },
        );
      }
      const stored = files.some((file) => file.stored);
      log.info(
        summary(files, stored ? {} : { reason: 'already stored' }),
        stored ? 'job_end: records stored' : 'job_end: records already stored',
      );
      return { outcome: 'stored', jobId, instanceId, status, files, apiCalls };
    },
  };
}
