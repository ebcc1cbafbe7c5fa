/**
 * What bounds one reconciliation run (docs/worker.md, "Reconciliation", "Bounds"): a platform
 * whose lists never end, repeat, or bring new ids on every page must cost a bounded number of
 * calls, a bounded time and a bounded number of recovered job_ends, and a shutdown must end a
 * run at once.
 */
export interface ReconcileLimits {
  /** RECONCILE_MAX_PAGES: pages of one list (the job list, or one job's instances) a run reads. */
  readonly maxPages: number;
  /** RECONCILE_MAX_RECOVERED: job_ends one run queues (or, dry, lists). */
  readonly maxRecovered: number;
  /** RECONCILE_MAX_RUN_SECONDS in ms: a run's wall-clock time at most. */
  readonly maxRunMs: number;
  /** RECONCILE_BUDGET_PERCENT: the share of the budget left above the floor one run may spend. */
  readonly budgetPercent: number;
}

/** What cut a run or a list short: the label of `svcws_reconcile_cuts_total`. */
export type ReconcileCap =
  'pages' | 'repeated_page' | 'recovered' | 'run_time' | 'budget_share' | 'budget_floor';

/** Why a run stopped before its end: a cap, or the worker's shutdown. */
export type StopReason = Exclude<ReconcileCap, 'pages' | 'repeated_page'> | 'shutdown';

/** Stops a run; caught at the top of the run, which reports it. */
export class RunStopped extends Error {
  constructor(
    readonly reason: StopReason,
    readonly fields: Readonly<Record<string, unknown>>,
  ) {
    super(`reconciliation run stopped: ${reason}`);
  }
}

export interface RunBounds {
  /** Aborts on shutdown or at the run's deadline: handed to every call of the run. */
  readonly signal: AbortSignal;
  /** API calls counted so far. */
  calls(): number;
  /** Before each call: throws `RunStopped` when the run may make no more. */
  spend(): void;
  /** Before each job_end queued: throws `RunStopped` once `maxRecovered` are. */
  recover(recoveredSoFar: number): void;
  /** The stop an error thrown mid-run stands for (an aborted call), or undefined. */
  stopOf(error: unknown): RunStopped | undefined;
  dispose(): void;
}

export interface RunBoundsOptions {
  readonly limits: ReconcileLimits;
  /** SVC_REMAINING_FLOOR: no call is made while the remaining budget is under it. */
  readonly remainingFloor: number;
  /** The latest `X-Svc-Api-Remaining` (spec §1.3). */
  readonly remaining: () => number | undefined;
  /** The worker's shutdown. */
  readonly shutdown?: AbortSignal | undefined;
  /** When the run must end (epoch ms); `maxRunMs` from now unless given. */
  readonly deadlineAt?: number | undefined;
}

/** The bounds of one run, started now. */
export function createRunBounds(options: RunBoundsOptions): RunBounds {
  const { limits, remainingFloor } = options;
  const deadlineAt = options.deadlineAt ?? Date.now() + limits.maxRunMs;
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(), Math.max(0, deadlineAt - Date.now()));
  const signal = options.shutdown
    ? AbortSignal.any([options.shutdown, timer.signal])
    : timer.signal;
  let calls = 0;
  // Fixed at the first budget known in the run: the share is of what was left when it began.
  let budgetCap: number | undefined;
  const timeStop = (): RunStopped | undefined => {
    if (options.shutdown?.aborted === true) return new RunStopped('shutdown', {});
    if (timer.signal.aborted || Date.now() >= deadlineAt) {
      return new RunStopped('run_time', { limit: limits.maxRunMs });
    }
    return undefined;
  };
  return {
    signal,
    calls: () => calls,
    spend: () => {
      const stopped = timeStop();
      if (stopped) throw stopped;
      const remaining = options.remaining();
      if (remaining !== undefined && remaining < remainingFloor) {
        throw new RunStopped('budget_floor', { remaining, floor: remainingFloor });
      }
      if (budgetCap === undefined && remaining !== undefined) {
        // The calls the floor still allows (it refuses a call only under it), and the run's share.
        const allowed = remaining - remainingFloor + 1;
        budgetCap = calls + Math.max(1, Math.floor((allowed * limits.budgetPercent) / 100));
      }
      if (budgetCap !== undefined && calls >= budgetCap) {
        throw new RunStopped('budget_share', { limit: budgetCap, percent: limits.budgetPercent });
      }
      calls += 1;
    },
    recover: (recoveredSoFar) => {
      const stopped = timeStop();
      if (stopped) throw stopped;
      if (recoveredSoFar >= limits.maxRecovered) {
        throw new RunStopped('recovered', { limit: limits.maxRecovered });
      }
    },
    stopOf: (error) => {
      if (error instanceof RunStopped) return error;
      return signal.aborted ? timeStop() : undefined;
    },
    dispose: () => clearTimeout(handle),
  };
}

/**
 * One list's walk: at most `maxPages` pages, and none that brings no id the walk has not seen
 * (a page served again, whatever its offset, would otherwise be walked until the count says stop).
 */
export function createListWalk(maxPages: number): {
  /** Before a page is used: 'repeated' when its ids were all seen on earlier pages. */
  admit(ids: readonly string[]): 'new' | 'repeated';
  /** After a page: whether one more may be read. */
  mayReadMore(): boolean;
  pages(): number;
} {
  const seen = new Set<string>();
  let pages = 0;
  return {
    admit: (ids) => {
      pages += 1;
      if (pages > 1 && ids.length > 0 && ids.every((id) => seen.has(id))) return 'repeated';
      for (const id of ids) seen.add(id);
      return 'new';
    },
    mayReadMore: () => pages < maxPages,
    pages: () => pages,
  };
}
