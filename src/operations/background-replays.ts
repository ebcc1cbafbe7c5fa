import { randomUUID } from 'node:crypto';
import { auditFilters, countHistory, replayHistory, writeAudit } from '../history';
import type { HistoryContext, HistoryFilters, ReplayOptions } from '../history';
import type { Logger } from '../logger';
import { recoveryRunningMessage, takeRecoveryLock } from './recovery-lock';
import type { LockRedis } from './recovery-lock';
import { holdRunSlot } from './running-runs';
import type { RunCap, RunRefusal } from './running-runs';
import { errField } from '../err-field';
import { logOperatorAction } from './operator-action';
import type { OperatorSurface } from './operator-action';

/** A replay by query (or a recovery) started from the console, as its progress page shows it. */
export interface ReplayRun {
  readonly replayId: string;
  /** A replay by query, or a recovery ("recover since": src/operations/recover-since.ts). */
  readonly kind: 'replay' | 'recover';
  readonly route: string;
  state: 'running' | 'done' | 'failed' | 'stopped';
  /** The filters as the audit keeps them (no person's id). */
  readonly filters: Record<string, string>;
  /** How many events match; null while they are being counted. */
  matched: number | null;
  /** More than `matched` events match: the run stops at its cap (`atMost`). */
  more: boolean;
  /** The most events this run handles; null: every matching one. */
  readonly atMost: number | null;
  queued: number;
  skipped: number;
  /** Matching events the route does not take (its `match:`): not sent. */
  leftOut: number;
  /** Sent the events the route does not take too (the operator's explicit choice, audited). */
  readonly ignoreRouteMatch: boolean;
  readonly startedAt: string;
  endedAt: string | null;
  readonly errors: string[];
  readonly actor: string;
  /** The institution the replay was held to (a scoped principal's), null: every one. */
  readonly institution: string | null;
}

export interface ReplayStart {
  readonly route: string;
  readonly filters: HistoryFilters;
  readonly actor: string;
  readonly institution: string | undefined;
  /** The route's queue, job options, and the events it takes (src/operations/replay-rule.ts). */
  readonly target: Pick<ReplayOptions, 'queue' | 'jobOptions' | 'takes'>;
  /** `ignoreRouteMatch`: `target.takes` takes every event (its audit rows say so). */
  readonly ignoreRouteMatch?: boolean;
  /** `recover`: audited as `recover.start`, `recover`, `recover.failed` (default `replay`). */
  readonly kind?: 'replay' | 'recover';
  /** Handles at most this many events (a recovery's cap). */
  readonly atMost?: number;
  /** What the audit rows add (a recovery's window). */
  readonly details?: Record<string, unknown>;
  /** The run's id, when the caller names it first (a recovery's lock holds it). */
  readonly replayId?: string;
}

/** A run started (its first progress), or refused. */
export type RunStart = ReplayRun | { readonly refused: RunRefusal };

export interface BackgroundReplays {
  /**
   * Starts the replay and answers at once with its first progress, or refuses it while
   * REPLAY_MAX_RUNNING runs run (in any process: running-runs.ts), naming them.
   */
  start(replay: ReplayStart): Promise<RunStart>;
  /**
   * Starts a recovery, or refuses it while another recovery of the same route runs (in any
   * process: recovery-lock.ts), naming that one, or past the cap as `start`; the lock and the
   * slot are given up when the run ends.
   */
  startRecovery(replay: ReplayStart & { readonly kind: 'recover' }): Promise<RunStart>;
  get(replayId: string): ReplayRun | undefined;
  /** Once the run has ended (done, failed or stopped): its last progress. */
  ended(replayId: string): Promise<ReplayRun | undefined>;
  /** Stops the running replays between two events and waits for them to end. */
  close(): Promise<void>;
}

/** Finished runs kept for their progress pages; older ones are forgotten (the audit keeps them). */
const KEEP_FINISHED = 100;

/**
 * Confirmed replays by query (and recoveries) run here — in the console process after the request
 * that started them has been answered, or under `history recover` — : replayHistory at its bounded
 * rate (as the CLI's `history replay`), the count of matches beside it, the progress in memory.
 * The audit gets a `replay.start` row, then replayHistory's own `replay` row with the count (or
 * `replay.failed`); a recovery's are `recover.*`. A console restart stops a replay where it is;
 * its audit row says how far it got.
 */
export function createBackgroundReplays(deps: {
  readonly context: HistoryContext;
  readonly ratePerSecond?: number | undefined;
  readonly logger?: Logger | undefined;
  /** Who started the runs, for their end line (`console action`, `cli action`): the console's. */
  readonly surface?: OperatorSurface | undefined;
  /** How many runs may run at once, over every process (unset: no cap). */
  readonly runCap?: RunCap | undefined;
}): BackgroundReplays {
  const runs = new Map<string, ReplayRun>();
  const tasks = new Map<string, Promise<void>>();
  const stop = new AbortController();
  const get = (replayId: string): ReplayRun | undefined => {
    const run = runs.get(replayId);
    return run === undefined ? undefined : { ...run, errors: [...run.errors] };
  };
  /** `onEnd` runs before the run counts as ended (`ended()` resolves after it). */
  const begin = (replay: ReplayStart, onEnd?: () => Promise<void>): ReplayRun => {
    const run = newRun(replay);
    forgetOldRuns(runs);
    runs.set(run.replayId, run);
    const task = runReplay(deps, replay, run, stop.signal).finally(async () => {
      await onEnd?.();
      tasks.delete(run.replayId);
    });
    tasks.set(run.replayId, task);
    return { ...run };
  };
  /** The run in a slot under the cap (given up when it ends), or the refusal naming the runs. */
  const start = async (replay: ReplayStart, onEnd?: () => Promise<void>): Promise<RunStart> => {
    const replayId = replay.replayId ?? randomUUID().slice(0, 8);
    const slot = await holdRunSlot(() => clientOf(replay), deps.runCap, {
      replayId,
      kind: replay.kind ?? 'replay',
      route: replay.route,
      actor: replay.actor,
    });
    if ('refused' in slot) {
      await onEnd?.();
      return slot;
    }
    return begin({ ...replay, replayId }, async () => {
      await onEnd?.();
      await slot.release();
    });
  };
  return {
    start: (replay) => start(replay),
    startRecovery: (replay) => startUnderRecoveryLock(replay, start),
    get,
    ended: async (replayId) => {
      await tasks.get(replayId);
      return get(replayId);
    },
    close: async () => {
      stop.abort();
      await Promise.all([...tasks.values()]);
    },
  };
}

/** The finished runs past the newest KEEP_FINISHED, forgotten. */
function forgetOldRuns(runs: Map<string, ReplayRun>): void {
  const finished = [...runs.values()].filter((run) => run.state !== 'running');
  for (const run of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) {
    runs.delete(run.replayId);
  }
}

/** A recovery: one per route at a time (the route's lock, released when it ends), then `start`. */
async function startUnderRecoveryLock(
  replay: ReplayStart,
  start: (replay: ReplayStart, onEnd?: () => Promise<void>) => Promise<RunStart>,
): Promise<RunStart> {
  const holder = {
    replayId: replay.replayId ?? randomUUID().slice(0, 8),
    actor: replay.actor,
    startedAt: new Date().toISOString(),
  };
  const taken = await takeRecoveryLock(await clientOf(replay), replay.target.queue.name, holder);
  if ('heldBy' in taken) {
    const message = recoveryRunningMessage(replay.route, taken.heldBy);
    return { refused: { code: 'recovery_running', message } };
  }
  return start({ ...replay, replayId: holder.replayId }, () => taken.lock.release());
}

/** The connection of the route's queue: the lock and the slots live beside its jobs. */
async function clientOf(replay: ReplayStart): Promise<LockRedis> {
  return replay.target.queue.backend.connection.client;
}

function newRun(replay: ReplayStart): ReplayRun {
  return {
    replayId: replay.replayId ?? randomUUID().slice(0, 8),
    kind: replay.kind ?? 'replay',
    route: replay.route,
    state: 'running',
    filters: Object.fromEntries(
      Object.entries(auditFilters(replay.filters)).map(([name, value]) => [
        name,
        value instanceof Date ? value.toISOString() : String(value),
      ]),
    ),
    matched: null,
    more: false,
    atMost: replay.atMost ?? null,
    queued: 0,
    skipped: 0,
    leftOut: 0,
    ignoreRouteMatch: replay.ignoreRouteMatch === true,
    startedAt: new Date().toISOString(),
    endedAt: null,
    errors: [],
    actor: replay.actor,
    institution: replay.institution ?? null,
  };
}

async function runReplay(
  deps: Parameters<typeof createBackgroundReplays>[0],
  replay: ReplayStart,
  run: ReplayRun,
  signal: AbortSignal,
): Promise<void> {
  const { context } = deps;
  const audit = auditOf(context, replay, run);
  // Counted beside the replay; the run ends once both have (a count that fails leaves it null).
  const counting = countHistory(context, replay.filters, replay.atMost).then(
    (matched) => {
      run.more = replay.atMost !== undefined && matched > replay.atMost;
      run.matched = run.more ? (replay.atMost ?? matched) : matched;
    },
    () => undefined,
  );
  try {
    await audit(`${run.kind}.start`, {});
    const result = await replayHistory(context, replay.filters, {
      ...replay.target,
      route: replay.route,
      actor: replay.actor,
      replayId: run.replayId,
      signal,
      audit: { action: run.kind, details: auditDetailsOf(replay) },
      ...(replay.atMost === undefined ? {} : { atMost: replay.atMost }),
      ...(deps.ratePerSecond === undefined ? {} : { ratePerSecond: deps.ratePerSecond }),
      onProgress: ({ queued, skipped, leftOut }) => {
        Object.assign(run, { queued, skipped, leftOut });
      },
    });
    await counting;
    Object.assign(run, {
      queued: result.queued,
      skipped: result.skipped,
      leftOut: result.leftOut,
      state: result.stopped ? 'stopped' : 'done',
      endedAt: new Date().toISOString(),
    });
    sayRunEnded(deps, replay, run);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await counting;
    run.errors.push(message);
    deps.logger?.error(
      { replayId: run.replayId, err: errField(error) },
      run.kind === 'recover' ? 'recovery failed' : 'replay by query failed',
    );
    // Ended only once audited: whoever sees the run failed finds the failure in the audit too.
    await audit(`${run.kind}.failed`, { error: message, queued: run.queued }).catch(
      () => undefined,
    );
    Object.assign(run, { state: 'failed', endedAt: new Date().toISOString() });
    sayRunEnded(deps, replay, run);
  }
}

/** The run's one operator action line, once it ended: how it ended and how many it queued. */
function sayRunEnded(
  deps: Parameters<typeof createBackgroundReplays>[0],
  replay: ReplayStart,
  run: ReplayRun,
): void {
  if (deps.logger === undefined) return;
  logOperatorAction(deps.logger, deps.surface ?? 'console', {
    actor: replay.actor,
    action: run.kind,
    // As its audit rows name it: the route's name.
    target: replay.route,
    outcome: run.state === 'stopped' ? 'stopped' : run.state === 'failed' ? 'failed' : 'done',
    count: run.queued,
    institution: replay.institution,
  });
}

/** An audit row about this replay: who, the route, its id, filters and institution. */
function auditOf(context: HistoryContext, replay: ReplayStart, run: ReplayRun) {
  return (action: string, details: Record<string, unknown>) =>
    writeAudit(context.db, {
      at: new Date(),
      actor: replay.actor,
      action,
      target: replay.route,
      details: {
        replayId: run.replayId,
        filters: run.filters,
        ...(replay.institution === undefined ? {} : { institution: replay.institution }),
        ...auditDetailsOf(replay),
        ...details,
      },
    });
}

/** What every audit row of the run adds: its details, and that it ignored the route's match. */
function auditDetailsOf(replay: ReplayStart): Record<string, unknown> {
  return {
    ...replay.details,
    ...(replay.ignoreRouteMatch === true ? { ignoreRouteMatch: true } : {}),
  };
}
