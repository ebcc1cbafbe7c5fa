import { z } from 'zod';
import { checkRecovery, recoveryRun } from '../../operations/recover-since';
import { recoveryDryRun } from '../../operations/recovery-dry-run';
import type { BackgroundReplays } from '../../operations/background-replays';
import { consoleError } from './console-error';
import type { ConsoleHistory, HistoryScope, RecoveryAnswer } from './console-history';
import { needsOperator, parsed } from './console-input';
import { missingRoute } from './missing-route';
import type { ConsoleHistoryOptions } from './create-console-history';

const time = z.iso.datetime({ offset: true }).transform((text) => new Date(text));
const text = z.string().min(1).max(500);

const RecoveryRequest = z.strictObject({
  route: text,
  since: time,
  until: time.optional(),
  institution: text.optional(),
  dryRun: z.boolean().default(true),
});

/** A dry run shows this many of the events it would send again. */
const SAMPLE_SIZE = 10;

/**
 * "Recover since" from the console: the same check and run as `history recover`
 * (src/operations/recover-since.ts), the run in the background beside the replays by query.
 */
export function consoleRecoveries(
  options: ConsoleHistoryOptions,
  replays: BackgroundReplays,
): Pick<ConsoleHistory, 'recover' | 'recoveryProgress'> {
  return {
    recover: (request, scope) => recover(options, replays, request, scope),
    recoveryProgress: (recoveryId, scope) => {
      const run = replays.get(recoveryId);
      if (run === undefined || run.kind !== 'recover') return Promise.resolve(undefined);
      if (scope.institution !== undefined && run.institution !== scope.institution) {
        throw consoleError.scope(`recovery ${recoveryId}`);
      }
      return Promise.resolve(run);
    },
  };
}

/** The institution a recovery is held to: a scoped principal's own, or the one asked. */
function institutionOf(asked: string | undefined, scope: HistoryScope): string | undefined {
  if (scope.institution !== undefined && asked !== undefined && asked !== scope.institution) {
    throw consoleError.scope(`institution ${asked}`);
  }
  return scope.institution ?? asked;
}

async function recover(
  options: ConsoleHistoryOptions,
  replays: BackgroundReplays,
  request: unknown,
  scope: HistoryScope,
): Promise<RecoveryAnswer> {
  needsOperator(scope, 'recover');
  const asked = parsed(RecoveryRequest, request, 'body');
  const institution = institutionOf(asked.institution, scope);
  const target = options.replayTarget(asked.route);
  if (target === undefined) throw await missingRoute(asked.route, options.routesRunByWorkers);
  const route = { name: asked.route, match: target.match };
  const check = checkRecovery({ ...asked, route, institution }, options.retention, new Date());
  if ('refused' in check) {
    throw consoleError.badField(`body.${check.refused.field}`, check.refused.reason);
  }
  if (asked.dryRun) {
    const context = { db: options.db, keys: options.keys };
    const takes = target.rule(false).takes;
    const dry = await recoveryDryRun(context, check.window, takes, SAMPLE_SIZE);
    return { dryRun: true, route: asked.route, ...dry };
  }
  const plan = recoveryRun(check.window);
  const run = await replays.startRecovery({
    route: asked.route,
    filters: plan.filters,
    actor: scope.actor ?? 'console',
    institution,
    target: { ...target, takes: target.rule(false).takes },
    kind: 'recover',
    atMost: plan.atMost,
    details: plan.audit.details,
  });
  if ('refused' in run) {
    throw consoleError.runRefused(run.refused);
  }
  return { dryRun: false, ...run };
}
