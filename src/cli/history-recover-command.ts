import { Queue } from 'bullmq';
import { replayRule } from '../operations/replay-rule';
import type { RecoveryWindow } from '../history';
import { createBackgroundReplays } from '../operations/background-replays';
import { runsKey } from '../operations/running-runs';
import type { ReplayRun } from '../operations/background-replays';
import { RECOVERY_CAP, checkRecovery, recoveryRun } from '../operations/recover-since';
import { recoveryDryRun } from '../operations/recovery-dry-run';
import type { RecoveryDryRun } from '../operations/recovery-dry-run';
import { routeJobOptions } from '../routes/create-fan-out';
import { KEEP_COMPLETED_HOURS } from '../routes/route-job-options';
import { routeQueueName } from '../routes/route-queue-name';
import type { Route } from '../routes/routes-file';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { historyActor } from './history-actor';
import { timeOption } from './history-filter-options';
import { cliRoutes, routeNamed } from './open-route-queues';
import { openCliHistory } from './open-cli-history';
import type { CliHistory } from './open-cli-history';
import { openCliRedis } from './open-cli-redis';
import { parseCommandArgs, positiveIntOption } from './parse-command-args';
import { cliLogger } from './cli-logger';

const COMMAND = 'history recover';

const OPTIONS = {
  route: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  institution: { type: 'string' },
  'dry-run': { type: 'boolean' },
  rate: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Seconds between two progress lines of a running recovery. */
const PROGRESS_SECONDS = 2;

/**
 * `history recover --route <name> --since <time> [--until <time>] [--institution <code>]
 * [--dry-run] [--rate N] [--json]`: the events whose deliveries on the route failed and never
 * succeeded since, sent again on the route's queue (docs/history.md, "Recover since").
 */
export async function historyRecoverCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(COMMAND, args, OPTIONS);
  if (positionals.length > 0) throw new CliUsageError(`${COMMAND}: takes no arguments`);
  if (values.route === undefined) throw new CliUsageError(`${COMMAND}: --route <name> is required`);
  const since = timeOption(COMMAND, 'since', values.since);
  if (since === undefined) throw new CliUsageError(`${COMMAND}: --since <time> is required`);
  const until = timeOption(COMMAND, 'until', values.until);
  const rate = positiveIntOption(COMMAND, 'rate', values.rate, 50);
  const { config, routes } = cliRoutes(io.env);
  const route = routeNamed(routes, values.route, COMMAND);
  const history = await openCliHistory(io);
  if (history === undefined) return 1;
  try {
    const retention = {
      days: history.config.HISTORY_RETENTION_DAYS,
      patronDays: history.config.HISTORY_PATRON_RETENTION_DAYS,
    };
    const asked = { route, since, until, institution: values.institution };
    const check = checkRecovery(asked, retention, new Date());
    if ('refused' in check) throw new CliUsageError(`${COMMAND}: ${check.refused.reason}`);
    const takes = replayRule(route, false).takes;
    const preview = await recoveryDryRun(history, check.window, takes, 10);
    // Nothing the route takes now: a run would queue nothing, so the dry run is all there is.
    if (values['dry-run'] === true || preview.sends === 0) {
      printPreview(io, preview, values.json === true);
      return 0;
    }
    const run = await recoverOnQueue(io, history, check.window, {
      route,
      queueName: config.QUEUE_NAME,
      rate,
    });
    printRun(io, run, values.json === true);
    return run.state === 'done' ? 0 : 1;
  } finally {
    await history.db.close();
  }
}

/** Both numbers and the actions left out ("more than" the cap past it), then the newest few. */
function printPreview(io: CliIo, preview: RecoveryDryRun, json: boolean): void {
  if (json) {
    io.out(JSON.stringify(preview));
    return;
  }
  io.out(`${preview.summary}.`);
  if (preview.more) {
    io.out(
      `More than ${String(RECOVERY_CAP)} events qualify: a run stops at ${String(RECOVERY_CAP)}; run it again for the rest.`,
    );
  }
  if (preview.sample.length > 0) io.out('The newest:');
  for (const one of preview.sample) {
    const status = one.status === null ? '' : ` status ${String(one.status)}`;
    const takes = one.routeTakes ? '' : '  (left out: the route does not take it now)';
    io.out(
      `  ${one.receivedAt}  ${one.institution}  ${one.eventId}  ${one.action}  failed ${one.failedAt} (attempt ${String(one.attempt)}${status})  ${one.error ?? ''}${takes}`,
    );
  }
}

/** The recovery on the route's own queue, as the console runs it, progress on stderr. */
async function recoverOnQueue(
  io: CliIo,
  history: CliHistory,
  window: RecoveryWindow,
  target: { route: Route; queueName: string; rate: number },
): Promise<ReplayRun> {
  const redis = await openCliRedis(io.env);
  const queue = new Queue(routeQueueName(target.queueName, target.route.name), {
    connection: redis.connection,
  });
  const replays = createBackgroundReplays({
    context: history,
    logger: cliLogger(io),
    surface: 'cli',
    ratePerSecond: target.rate,
    runCap: { key: runsKey(target.queueName), max: history.config.REPLAY_MAX_RUNNING },
  });
  const plan = recoveryRun(window);
  const started = await replays.startRecovery({
    route: target.route.name,
    filters: plan.filters,
    actor: historyActor(),
    institution: window.institution,
    target: {
      queue,
      jobOptions: routeJobOptions(target.route, KEEP_COMPLETED_HOURS),
      // Events that failed there matched the route then; one the routes file no longer sends
      // there is left out, as a replay leaves it out.
      takes: replayRule(target.route, false).takes,
    },
    kind: 'recover',
    atMost: plan.atMost,
    details: plan.audit.details,
  });
  if ('refused' in started) {
    await replays.close();
    await queue.close();
    await redis.close();
    throw new CliUsageError(`${COMMAND}: ${started.refused.message}`, started.refused.code);
  }
  io.err(
    `Recovering on route ${target.route.name} at ${String(target.rate)}/s (${started.replayId})…`,
  );
  const timer = setInterval(() => {
    const run = replays.get(started.replayId);
    if (run !== undefined)
      io.err(`  ${String(run.queued)} of ${String(run.matched ?? '?')} queued`);
  }, PROGRESS_SECONDS * 1000);
  try {
    return (await replays.ended(started.replayId)) ?? started;
  } finally {
    clearInterval(timer);
    await replays.close();
    await queue.close();
    await redis.close();
  }
}

function printRun(io: CliIo, run: ReplayRun, json: boolean): void {
  if (json) {
    io.out(JSON.stringify(run));
    return;
  }
  if (run.state === 'failed') {
    io.err(
      `Recovery ${run.replayId} failed after ${String(run.queued)} queued: ${run.errors.join('; ')}`,
    );
    return;
  }
  const capped = run.more
    ? ` (more than ${String(RECOVERY_CAP)} qualified: run it again for the rest)`
    : '';
  io.out(
    `${String(run.queued)} events queued again on route ${run.route} (recovery ${run.replayId}); ${String(run.skipped)} without a stored body skipped${capped}.`,
  );
}
