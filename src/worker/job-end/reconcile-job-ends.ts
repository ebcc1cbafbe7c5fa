import { z } from 'zod';
import { JobInfo, JobInstance, SvcApiError } from '@svcws/client';
import type { Page, SvcClient } from '@svcws/client';
import type { EnqueueEvent } from '../../events/enqueue-event';
import type { Logger } from '../../logger';
import type { ImportJobMatcher } from './import-job-matcher';
import type { JobEndSeen } from './job-end-seen';
import { isPlatformId } from './platform-id';
import { createListWalk, createRunBounds } from './reconcile-bounds';
import type {
  ReconcileCap,
  ReconcileLimits,
  RunBounds,
  StopReason,
  RunStopped,
} from './reconcile-bounds';
import { UNFINISHED_STATUSES } from './records-to-download';
import { recoveredJobEnd } from './recovered-job-end';

/** One institution, as the reconciliation sees it. */
export interface ReconcileTarget {
  /** Its code (its events' `institution.value`); undefined for a single unnamed institution. */
  readonly institution: string | undefined;
  readonly client: Pick<SvcClient, 'paginate' | 'remaining'>;
  /** IMPORT_JOB_MATCH: the jobs whose instances are looked at. */
  readonly isImportJob: ImportJobMatcher;
  /** RECONCILE_JOB_IDS: looked at too, whatever IMPORT_JOB_MATCH says. */
  readonly jobIds: readonly string[];
  /** SVC_REMAINING_FLOOR: no call is made while the remaining budget is under it. */
  readonly remainingFloor: number;
  /** The RECONCILE_MAX_* caps and RECONCILE_BUDGET_PERCENT (reconcile-bounds.ts). */
  readonly limits: ReconcileLimits;
  /** Called once per cap that cut a run or a list short (the metric). */
  readonly onCut?: ((institution: string | undefined, cap: ReconcileCap) => void) | undefined;
  readonly seen: JobEndSeen;
  /** Queues an event on the institution's event queue, as the listener queues a delivery. */
  readonly enqueue: EnqueueEvent;
  readonly logger: Logger;
}

export interface ReconcileWindow {
  /** Instances submitted on this UTC day or later (spec §4.3: submit_date_from is a date). */
  readonly since: Date;
  /** Through this UTC day, inclusive. */
  readonly until: Date;
  /** Find and report only: nothing is claimed or queued. */
  readonly dryRun: boolean;
  /** Names the run in the recovered events' meta and in log lines. */
  readonly runId: string;
  /** The worker's shutdown: the run ends at once, incomplete. */
  readonly signal?: AbortSignal | undefined;
  /** When the run must end (epoch ms); RECONCILE_MAX_RUN_SECONDS from its start unless given. */
  readonly deadlineAt?: number | undefined;
}

export interface RecoveredInstance {
  readonly jobId: string;
  readonly instanceId: string;
  readonly eventId: string;
}

export interface ReconcileReport {
  readonly institution: string | undefined;
  /** The jobs looked at: those IMPORT_JOB_MATCH selects, then RECONCILE_JOB_IDS. */
  readonly jobs: readonly string[];
  /** API calls made: pages of the job list, then pages of each job's instances. */
  readonly apiCalls: number;
  /** Finished instances in the window (seen or not). */
  readonly finished: number;
  /** Finished instances with no job_end taken up: queued (or, in a dry run, to be queued). */
  readonly recovered: readonly RecoveredInstance[];
  /** False when the run stopped early or a cap cut a list short: the next run covers it again. */
  readonly complete: boolean;
  readonly stoppedBecause?: string;
  /** The caps that cut this run or one of its lists short, in order. */
  readonly cuts: readonly ReconcileCut[];
  /** Ids listed that are no platform id (platform-id.ts): skipped, never put in a path. */
  readonly skippedIds: number;
}

export interface ReconcileCut {
  readonly cap: ReconcileCap;
  /** The list cut short (`jobs`, or a job id), for a list's cap. */
  readonly list?: string;
}

const JOBS_ROUTE = 'GET /conf/jobs';
const INSTANCES_ROUTE = 'GET /conf/jobs/{job_id}/instances';

/** A job of the job list: the fields IMPORT_JOB_MATCH reads. */
const ListedJob = JobInfo.extend({ id: z.string() });
/** An instance of an instance list: its id, its status, and everything else as the platform sent it. */
const ListedJobInstance = JobInstance.extend({ id: z.string() });

/** How a stop reads in a report and the CLI. */
const STOP_TEXT: Record<StopReason, string> = {
  budget_floor: 'budget floor',
  budget_share: 'budget share',
  recovered: 'recovered cap',
  run_time: 'run time',
  shutdown: 'shutdown',
};

/** One run's state, handed down its steps. */
interface Run {
  readonly target: ReconcileTarget;
  readonly window: ReconcileWindow;
  readonly bounds: RunBounds;
  finished: number;
  readonly recovered: RecoveredInstance[];
  readonly cuts: ReconcileCut[];
  skippedIds: number;
}

/**
 * Finds the job_ends the platform never delivered (docs/worker.md, "Reconciliation"): the jobs
 * (spec §4.3 GET /conf/jobs), each selected job's instances submitted in the window (GET
 * /conf/jobs/{job_id}/instances with submit_date_from/to — without `status`, which takes one
 * status a call where "finished" is several), and for each finished instance whose job_end no
 * job has taken up, a job_end made from it and queued as a delivery's. Calls: one per page of
 * the job list and of each job's instances, nothing per instance. Bounded (reconcile-bounds.ts):
 * pages per list, repeated pages, job_ends per run, wall-clock time, the budget's floor and share,
 * and the shutdown signal; what a bound cut off is logged and counted, and the run is incomplete.
 */
export async function reconcileJobEnds(
  target: ReconcileTarget,
  window: ReconcileWindow,
): Promise<ReconcileReport> {
  const bounds = createRunBounds({
    limits: target.limits,
    remainingFloor: target.remainingFloor,
    remaining: () => target.client.remaining(),
    shutdown: window.signal,
    deadlineAt: window.deadlineAt,
  });
  const run: Run = { target, window, bounds, finished: 0, recovered: [], cuts: [], skippedIds: 0 };
  const jobs: string[] = [];
  let stopped: RunStopped | undefined;
  try {
    jobs.push(...(await selectedJobs(run)));
    for (const jobId of jobs) await reconcileJob(run, jobId);
  } catch (error) {
    stopped = bounds.stopOf(error);
    if (stopped === undefined) throw error;
    logStop(run, stopped);
  } finally {
    bounds.dispose();
    logSkippedIds(run);
  }
  return {
    institution: target.institution,
    jobs,
    apiCalls: bounds.calls(),
    finished: run.finished,
    recovered: run.recovered,
    complete: stopped === undefined && run.cuts.length === 0,
    ...(stopped === undefined ? {} : { stoppedBecause: STOP_TEXT[stopped.reason] }),
    cuts: run.cuts,
    skippedIds: run.skippedIds,
  };
}

function logStop(run: Run, stopped: RunStopped): void {
  const { target, window } = run;
  const fields = { runId: window.runId, institution: target.institution, ...stopped.fields };
  if (stopped.reason === 'shutdown') {
    target.logger.info(fields, 'reconciliation run stopped: the worker is shutting down');
    return;
  }
  if (stopped.reason === 'budget_floor') {
    target.logger.warn(fields, 'reconciliation stopped at the API budget floor');
  }
  cut(run, stopped.reason, fields);
}

/** Records, logs and counts what a cap cut off. */
function cut(run: Run, cap: ReconcileCap, fields: Record<string, unknown>, list?: string): void {
  run.cuts.push(list === undefined ? { cap } : { cap, list });
  run.target.logger.warn(
    {
      runId: run.window.runId,
      institution: run.target.institution,
      cap,
      ...(list === undefined ? {} : { list }),
      apiCalls: run.bounds.calls(),
      recovered: run.recovered.length,
      ...fields,
    },
    'reconciliation cut off by a cap: the next run covers the rest',
  );
  run.target.onCut?.(run.target.institution, cap);
}

/** One line a run, with the count: ids that would change the path they are put in are never used. */
function logSkippedIds(run: Run): void {
  if (run.skippedIds === 0) return;
  run.target.logger.warn(
    { runId: run.window.runId, institution: run.target.institution, count: run.skippedIds },
    'reconciliation: listed ids that are not platform ids skipped',
  );
}

/**
 * One job's instances. A listing the service refuses with a 400 (a RECONCILE_JOB_IDS entry that
 * is no job id: 402215, 402216) is logged and the job skipped: it would be refused on every run,
 * and must not hold back the others. Any other failure stops the run, incomplete.
 */
async function reconcileJob(run: Run, jobId: string): Promise<void> {
  const { window } = run;
  try {
    const query = { submit_date_from: utcDay(window.since), submit_date_to: utcDay(window.until) };
    const pages = boundedPages(run, jobId, (signal) =>
      run.target.client.paginate.pages(INSTANCES_ROUTE, { path: { job_id: jobId }, query, signal }),
    );
    for await (const items of pages) await takeUpMissed(run, jobId, items);
  } catch (error) {
    if (!(error instanceof SvcApiError) || error.status !== 400) throw error;
    run.target.logger.warn(
      { runId: window.runId, platformJobId: jobId, code: error.code, meaning: error.meaning },
      "reconciliation: the service refused the job's instance list: job skipped",
    );
  }
}

async function selectedJobs(run: Run): Promise<string[]> {
  const { target } = run;
  const selected = new Set<string>();
  const jobPages = boundedPages(run, 'jobs', (signal) =>
    target.client.paginate.pages(JOBS_ROUTE, { query: {}, signal }),
  );
  for await (const items of jobPages) {
    for (const item of items) {
      const job = ListedJob.safeParse(item);
      if (!job.success) continue;
      if (!isPlatformId(job.data.id)) {
        run.skippedIds += 1;
        continue;
      }
      if (target.isImportJob({ status: { value: '' }, job_info: job.data })) {
        selected.add(job.data.id);
      }
    }
  }
  for (const jobId of target.jobIds) {
    if (isPlatformId(jobId)) selected.add(jobId);
    else run.skippedIds += 1;
  }
  return [...selected];
}

/** Whether the walk asks for another page (the client's rule: paginate.ts). */
function morePages(page: { items: readonly unknown[]; total: number | undefined; offset: number }) {
  if (page.items.length === 0) return false;
  return page.total === undefined || page.offset + page.items.length < page.total;
}

/** An item's id for telling pages apart; an item without one is told apart by its text. */
function idOf(item: unknown): string {
  if (typeof item === 'object' && item !== null && 'id' in item && typeof item.id === 'string') {
    return item.id;
  }
  return JSON.stringify(item) ?? '';
}

/**
 * A list's pages, each call counted and bounded (`spend`), under the run's signal; a list longer
 * than RECONCILE_MAX_PAGES, or a page of ids all seen on earlier pages, ends the walk with a cut.
 */
async function* boundedPages(
  run: Run,
  list: string,
  open: (signal: AbortSignal) => AsyncIterator<Page>,
): AsyncGenerator<readonly unknown[]> {
  const walk = createListWalk(run.target.limits.maxPages);
  run.bounds.spend();
  const pages = open(run.bounds.signal);
  for (let next = await pages.next(); !next.done;) {
    if (walk.admit(next.value.items.map(idOf)) === 'repeated') {
      cut(run, 'repeated_page', { offset: next.value.offset, pages: walk.pages() }, list);
      return;
    }
    yield next.value.items;
    if (!morePages(next.value)) return;
    if (!walk.mayReadMore()) {
      cut(run, 'pages', { limit: run.target.limits.maxPages }, list);
      return;
    }
    run.bounds.spend();
    next = await pages.next();
  }
}

/** The finished instances of one page, those with a platform id; the others are counted skipped. */
function finishedOf(run: Run, items: readonly unknown[]) {
  const finished = items
    .map((item) => ListedJobInstance.safeParse(item))
    .flatMap((parsed) => (parsed.success ? [parsed.data] : []))
    .filter((instance) => !UNFINISHED_STATUSES.has(instance.status.value));
  const usable = finished.filter((instance) => isPlatformId(instance.id));
  run.skippedIds += finished.length - usable.length;
  return usable;
}

/** The finished instances of one page whose job_end nobody took up: queued (claimed) as recovered. */
async function takeUpMissed(run: Run, jobId: string, items: readonly unknown[]): Promise<void> {
  const { target, window } = run;
  const finished = finishedOf(run, items);
  run.finished += finished.length;
  const seen = await target.seen.seen(finished.map((instance) => instance.id));
  const missed = finished.filter((_, index) => seen[index] !== true);
  for (const instance of missed) {
    run.bounds.recover(run.recovered.length);
    const event = recoveredJobEnd(instance, {
      institution: target.institution,
      now: new Date(),
      runId: window.runId,
    });
    const found = { jobId, instanceId: instance.id, eventId: event.id };
    if (window.dryRun) {
      run.recovered.push(found);
      continue;
    }
    // Queued first, claimed second: a webhook job that claims in between wins, and this job then
    // completes without work when it runs (job-end-once.ts); it is not counted as recovered.
    const { jobId: queuedAs } = await target.enqueue(event);
    if (!(await target.seen.claim(instance.id, queuedAs))) continue;
    run.recovered.push(found);
    target.logger.info(
      {
        eventId: event.id,
        action: 'job_end',
        queueJobId: queuedAs,
        instanceId: instance.id,
        runId: window.runId,
      },
      'job_end recovered: queued',
    );
  }
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
