import { historyBody } from '../history/history-body';
import { previewRecovery, recoveryFilters } from '../history/recovery-candidates';
import type { RecoveryCandidate, RecoveryWindow } from '../history/recovery-candidates';
import { previewReplay } from '../history/replay-history';
import type { ReplayTakes } from '../history/replay-history';
import type { HistoryContext } from '../history/search-history';
import { RECOVERY_CAP } from './recover-since';
import { replayDryRunText } from './replay-dry-run-text';

/** A recovery's dry run: as a replay's (both numbers, the actions left out), with each failure. */
export interface RecoveryDryRun {
  /** Events that failed on the route and never succeeded since; with `more`, the cap (a floor). */
  readonly count: number;
  readonly more: boolean;
  /** Of those, how many the route takes now (its `match:` and `where:`): what a run sends. */
  readonly routeCount: number;
  /** The failed events the route no longer takes, by action: a run leaves them out. */
  readonly leftOut: Record<string, number>;
  /** Failed events whose body the history does not hold: a run skips them. */
  readonly withoutBody: number;
  /** How many a run would send (a floor with `more`). */
  readonly sends: number;
  /** The dry run in words, as `history replay --dry-run` words its own. */
  readonly summary: string;
  /** The newest few, each with its last failure and whether the route takes it now. */
  readonly sample: (RecoveryCandidate & { readonly routeTakes: boolean })[];
}

/**
 * What a recovery would send, counted by the rule its run applies (`takes`: replayRule's, the
 * route's `match:` and `where:` through routeTakesEvent): an event that failed on the route when
 * the routes file sent it there, but that the route no longer takes, is counted apart and named
 * by its action.
 */
export async function recoveryDryRun(
  context: HistoryContext,
  window: RecoveryWindow,
  takes: ReplayTakes,
  sampleSize: number,
): Promise<RecoveryDryRun> {
  const route = window.route;
  const preview = await previewRecovery(context, window, { sampleSize, atMost: RECOVERY_CAP });
  const dry = await previewReplay(context, recoveryFilters(window), {
    takes,
    countAtMost: RECOVERY_CAP,
    sampleSize: 0,
  });
  const failed = `failed on route ${route} and never succeeded since`;
  const text = replayDryRunText(
    { ...dry, count: preview.count, more: preview.more },
    route,
    false,
    {
      one: failed,
      many: failed,
    },
  );
  const sample = await Promise.all(
    preview.sample.map(async (one) => {
      const event = await historyBody(context, one);
      return { ...one, routeTakes: event !== undefined && takes(event) };
    }),
  );
  const { routeCount, leftOut, withoutBody } = dry;
  return {
    count: preview.count,
    more: preview.more,
    routeCount,
    leftOut,
    withoutBody,
    sends: text.sends,
    summary: text.summary,
    sample,
  };
}
