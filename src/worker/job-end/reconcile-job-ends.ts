import { z } from 'zod';
import { JobInfo, JobInstance, SvcApiError } from '@svcws/client';
import type { SvcClient } from '@svcws/client';
import type { EnqueueEvent } from '../../events/enqueue-event';
import type { Logger } from '../../logger';
import type { ImportJobMatcher } from './import-job-matcher';
import type { JobEndSeen } from './job-end-seen';
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
  /** False when the run stopped early: the budget floor, or a call that failed. */
  readonly complete: boolean;
  readonly stoppedBecause?: string;
}

const JOBS_ROUTE = 'GET /conf/jobs';
const INSTANCES_ROUTE = 'GET /conf/jobs/{job_id}/instances';

/** A job of the job list: the fields IMPORT_JOB_MATCH reads. */
const ListedJob = JobInfo.extend({ id: z.string().min(1) });
/** An instance of an instance list: its id, its status, and everything else as the platform sent it. */
const ListedJobInstance = JobInstance.extend({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

/** Stops a run: the budget is under the floor. */
class BudgetFloorReached extends Error {
  constructor(readonly remaining: number) {
    super(`API budget under the floor (${String(remaining)} remaining)`);
  }
}

/**
 * Finds the job_ends the platform never delivered (docs/worker.md, "Reconciliation"): the jobs
 * (spec §4.3 GET /conf/jobs), each selected job's instances submitted in the window (GET
 * /conf/jobs/{job_id}/instances with submit_date_from/to — without `status`, which takes one
 * status a call where "finished" is several), and for each finished instance whose job_end no
 * job has taken up, a job_end made from it and queued as a delivery's. Calls: one per page of
 * the job list and of each job's instances, nothing per instance. Before each call the budget
 * is read: under SVC_REMAINING_FLOOR the run stops, incomplete.
 */
export async function reconcileJobEnds(
  target: ReconcileTarget,
  window: ReconcileWindow,
): Promise<ReconcileReport> {
  const run = { calls: 0, finished: 0, recovered: [] as RecoveredInstance[] };
  const jobs: string[] = [];
  const report = (extra: { complete: boolean; stoppedBecause?: string }): ReconcileReport => ({
    institution: target.institution,
    jobs,
    apiCalls: run.calls,
    finished: run.finished,
    recovered: run.recovered,
    ...extra,
  });
  try {
    jobs.push(...(await selectedJobs(target, run)));
    for (const jobId of jobs) await reconcileJob(target, run, jobId, window);
    return report({ complete: true });
  } catch (error) {
    if (!(error instanceof BudgetFloorReached)) throw error;
    target.logger.warn(
      { runId: window.runId, remaining: error.remaining, floor: target.remainingFloor },
      'reconciliation stopped at the API budget floor',
    );
    return report({ complete: false, stoppedBecause: 'budget floor' });
  }
}

/**
 * One job's instances. A listing the service refuses with a 400 (a RECONCILE_JOB_IDS entry that
 * is no job id: 402215, 402216) is logged and the job skipped: it would be refused on every run,
 * and must not hold back the others. Any other failure stops the run, incomplete.
 */
async function reconcileJob(
  target: ReconcileTarget,
  run: RunCount,
  jobId: string,
  window: ReconcileWindow,
): Promise<void> {
  try {
    for await (const page of instancePages(target, run, jobId, window)) {
      await takeUpMissed(target, run, jobId, page, window);
    }
  } catch (error) {
    if (!(error instanceof SvcApiError) || error.status !== 400) throw error;
    target.logger.warn(
      { runId: window.runId, jobId, code: error.code, meaning: error.meaning },
      "reconciliation: the service refused the job's instance list: job skipped",
    );
  }
}

interface RunCount {
  calls: number;
  finished: number;
  recovered: RecoveredInstance[];
}

/** Before each call: the latest remaining budget at or above the floor, or the run stops. */
function spendOne(target: ReconcileTarget, run: RunCount): void {
  const remaining = target.client.remaining();
  if (remaining !== undefined && remaining < target.remainingFloor) {
    throw new BudgetFloorReached(remaining);
  }
  run.calls += 1;
}

async function selectedJobs(target: ReconcileTarget, run: RunCount): Promise<string[]> {
  const selected = new Set<string>();
  spendOne(target, run);
  const pages = target.client.paginate.pages(JOBS_ROUTE, { query: {} });
  for (let next = await pages.next(); !next.done;) {
    for (const item of next.value.items) {
      const job = ListedJob.safeParse(item);
      if (job.success && target.isImportJob({ status: { value: '' }, job_info: job.data })) {
        selected.add(job.data.id);
      }
    }
    if (!morePages(next.value)) break;
    spendOne(target, run);
    next = await pages.next();
  }
  for (const jobId of target.jobIds) selected.add(jobId);
  return [...selected];
}

/** Whether the walk asks for another page (the client's rule: paginate.ts). */
function morePages(page: { items: readonly unknown[]; total: number | undefined; offset: number }) {
  if (page.items.length === 0) return false;
  return page.total === undefined || page.offset + page.items.length < page.total;
}

async function* instancePages(
  target: ReconcileTarget,
  run: RunCount,
  jobId: string,
  window: ReconcileWindow,
): AsyncGenerator<readonly unknown[]> {
  spendOne(target, run);
  const pages = target.client.paginate.pages(INSTANCES_ROUTE, {
    path: { job_id: jobId },
    query: { submit_date_from: utcDay(window.since), submit_date_to: utcDay(window.until) },
  });
  for (let next = await pages.next(); !next.done;) {
    yield next.value.items;
    if (!morePages(next.value)) return;
    spendOne(target, run);
    next = await pages.next();
  }
}

/** The finished instances of one page whose job_end nobody took up: queued (claimed) as recovered. */
async function takeUpMissed(
  target: ReconcileTarget,
  run: RunCount,
  jobId: string,
  items: readonly unknown[],
  window: ReconcileWindow,
): Promise<void> {
  const finished = items
    .map((item) => ListedJobInstance.safeParse(item))
    .flatMap((parsed) => (parsed.success ? [parsed.data] : []))
    .filter((instance) => !UNFINISHED_STATUSES.has(instance.status.value));
  run.finished += finished.length;
  const seen = await target.seen.seen(finished.map((instance) => instance.id));
  const missed = finished.filter((_, index) => seen[index] !== true);
  for (const instance of missed) {
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
        jobId: queuedAs,
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
