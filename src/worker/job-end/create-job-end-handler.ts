import type { Job } from 'bullmq';
import type { Logger } from '../../logger';
import { eventLineFields } from '../../events/event-line-fields';
import { eventAttributes } from '../../tracing/event-attributes';
import { inSpan } from '../../tracing/in-span';
import type { SvcClient } from '@svcws/client';
import type { JobInstance } from '@svcws/client';
import type { EventHandler } from '../handler-registry';
import type { ImportJobMatcher } from './import-job-matcher';
import { InstanceNotFinishedError } from './instance-not-finished-error';
import { jobIdOfInstance } from './job-id-of-instance';
import { JobEndEvent } from './job-end-event';
import { recordsPath } from './records-path';
import type { DownloadFormat } from './records-path';
import { recordsToDownload } from './records-to-download';
import type { LineTypeToDownload } from './records-to-download';
import { storeRecords } from './store-records';

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
const UNKNOWN_INSTITUTION = 'unknown-institution';

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
  /** The instance's counters (type → value), as the platform reported them. */
  readonly counters: Record<string, string>;
}

/** The handler's options with the idle timeout settled. */
type StoreOptions = JobEndHandlerOptions & { readonly idleTimeoutMs: number };

/** What one run of the handler knows and counts while it goes. */
interface Run {
  readonly event: JobEndEvent;
  readonly job: Job;
  readonly signal: AbortSignal | undefined;
  readonly log: Logger;
  readonly started: number;
  apiCalls: number;
}

/**
 * job_end (spec §6.2): fetch the instance (spec §4.3; `ALL` when the event does not name the job),
 * decide whether it loaded records, and stream each wanted line type into RECORDS_DIR. Budget:
 * one call for the instance, one per line type downloaded, nothing else. An instance that has not
 * finished is read again on a later attempt (InstanceNotFinishedError), never completed as
 * "nothing to download": a completed job would make the listener drop every redelivery.
 */
export function createJobEndHandler(options: JobEndHandlerOptions): EventHandler<JobEndEvent> {
  const withIdle = { ...options, idleTimeoutMs: options.idleTimeoutMs ?? 60_000 };
  return {
    action: 'job_end',
    payload: JobEndEvent,
    async handle(event, { job, signal, logger }): Promise<JobEndResult> {
      // The event's line fields (docs/logs.md), but not twice: a member's logger names its
      // institution already.
      const bound = logger.bindings();
      const about = Object.entries(eventLineFields(event)).filter(([key]) => !(key in bound));
      const log = logger.child({
        ...Object.fromEntries(about),
        instanceId: event.job_instance.id,
      });
      const run: Run = { event, job, signal, log, started: performance.now(), apiCalls: 0 };
      return runJobEnd(withIdle, run);
    },
  };
}

/** One run: the instance read, the decision, then nothing or the downloads (one summary line). */
async function runJobEnd(options: StoreOptions, run: Run): Promise<JobEndResult> {
  const instanceId = run.event.job_instance.id;
  const instance = await fetchInstance(options, run);
  const jobId = jobIdOfInstance(instance) ?? jobIdOfInstance(run.event.job_instance);
  const status = instance.status.value;
  const summary = summaryOf(run, {
    platformJobId: jobId,
    jobName: instance.job_info?.name,
    jobStatus: status,
  });
  const resultOf = (outcome: JobEndResult['outcome'], files: readonly StoredFile[]) => ({
    outcome,
    jobId,
    instanceId,
    status,
    files,
    apiCalls: run.apiCalls,
    counters: countersOf(instance),
  });

  const decision = recordsToDownload(instance, options);
  if (decision.download === 'later') {
    run.log.info(summary([], { reason: decision.reason }), 'job_end: instance not finished');
    throw new InstanceNotFinishedError(instanceId, status);
  }
  if (!decision.download || jobId === undefined) {
    const reason = decision.download ? 'the instance names no job id' : decision.reason;
    run.log.info(summary([], { reason }), 'job_end: nothing to download');
    return { ...resultOf('skipped', []), reason };
  }
  const files = await downloadLineTypes(options, run, jobId, decision.lineTypes);
  // A run whose lock was lost meanwhile (create-worker.ts) says nothing of what it stored: the
  // run that holds the job now does, and this one ends as aborted.
  run.signal?.throwIfAborted();
  const stored = files.some((file) => file.stored);
  run.log.info(
    summary(files, stored ? {} : { reason: 'already stored' }),
    stored ? 'job_end: records stored' : 'job_end: records already stored',
  );
  return resultOf('stored', files);
}

/** Each wanted line type stored in turn, each download in its own span. */
async function downloadLineTypes(
  options: StoreOptions,
  run: Run,
  jobId: string,
  lineTypes: readonly LineTypeToDownload[],
): Promise<StoredFile[]> {
  const files: StoredFile[] = [];
  for (const wanted of lineTypes) {
    const attributes = {
      ...eventAttributes({ eventId: run.event.id, action: run.event.action }),
      'svcws.line_type': wanted.lineType,
    };
    files.push(
      await inSpan('download records', { attributes }, () =>
        storeLineType(options, run, jobId, wanted),
      ),
    );
  }
  return files;
}

async function fetchInstance(options: JobEndHandlerOptions, run: Run): Promise<JobInstance> {
  run.apiCalls += 1;
  const instance = await options.client.request(INSTANCE_ROUTE, {
    // spec §4.3: "job_id may be the word ALL" — for an event that names only the instance.
    path: {
      job_id: jobIdOfInstance(run.event.job_instance) ?? 'ALL',
      instance_id: run.event.job_instance.id,
    },
    signal: run.signal,
  });
  run.log.info(
    {
      platformJobId: jobIdOfInstance(instance) ?? jobIdOfInstance(run.event.job_instance),
      jobName: instance.job_info?.name,
      jobStatus: instance.status.value,
      counters: numericCounters(countersOf(instance)),
      alerts: (instance.alert ?? []).map((alert) => alert.value),
    },
    'job instance fetched',
  );
  return instance;
}

function countersOf(instance: JobInstance): Record<string, string> {
  return Object.fromEntries(
    (instance.counter ?? []).map((counter) => [counter.type.value, counter.value]),
  );
}

/**
 * The counters as a log line has them: numbers (the platform sends `"25"`). A value that is no
 * whole number is left out of the line rather than given another type (docs/logs.md).
 */
function numericCounters(counters: Record<string, string>): Record<string, number> {
  const numbers: Record<string, number> = {};
  for (const [type, value] of Object.entries(counters)) {
    if (/^-?\d+$/.test(value.trim())) numbers[type] = Number(value);
  }
  return numbers;
}

/** The fields of the one summary line each run ends with. */
function summaryOf(
  run: Run,
  head: { platformJobId: string | undefined; jobName: string | undefined; jobStatus: string },
) {
  return (files: readonly StoredFile[], extra: Record<string, unknown>) => ({
    ...head,
    records: files.reduce((sum, file) => sum + (file.records ?? 0), 0),
    bytes: files.reduce((sum, file) => sum + (file.bytes ?? 0), 0),
    file: files.length === 1 ? files[0]?.file : undefined,
    files: files.length > 1 ? files : undefined,
    durationMs: Math.round(performance.now() - run.started),
    apiCalls: run.apiCalls,
    ...extra,
  });
}

async function storeLineType(
  options: StoreOptions,
  run: Run,
  jobId: string,
  { lineType, expected }: LineTypeToDownload,
): Promise<StoredFile> {
  const file = recordsPath(options.recordsDir, {
    institution: run.event.institution?.value ?? UNKNOWN_INSTITUTION,
    jobId,
    instanceId: run.event.job_instance.id,
    lineType,
    format: options.format,
  });
  const result = await storeRecords({
    client: {
      downloadStream: (params, callOptions) => {
        run.apiCalls += 1;
        return options.client.downloadStream(params, callOptions);
      },
    },
    params: {
      job_id: jobId,
      instance_id: run.event.job_instance.id,
      download_format: options.format,
      line_type: lineType,
    },
    file,
    tempTag: run.job.id ?? 'job',
    idleTimeoutMs: options.idleTimeoutMs,
    signal: run.signal,
  });
  if (!result.stored) return { lineType, file, stored: false, expected };
  if (result.records !== expected) {
    run.log.warn(
      { platformJobId: jobId, lineType, records: result.records, expected },
      'records counted differ from the instance counter',
    );
  }
  return { lineType, file, stored: true, expected, records: result.records, bytes: result.bytes };
}
