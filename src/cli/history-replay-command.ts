import { countOf } from '../count-of';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { previewReplay, replayHistory } from '../history';
import type { HistoryFilters, ReplayDryRun } from '../history';
import { replayDryRunText } from '../operations/replay-dry-run-text';
import { replayRule } from '../operations/replay-rule';
import { holdRunSlot, runsKey } from '../operations/running-runs';
import type { ReplayRule } from '../operations/replay-rule';
import type { Route } from '../routes/routes-file';
import { routeJobOptions } from '../routes/create-fan-out';
import { KEEP_COMPLETED_HOURS } from '../routes/route-job-options';
import { routeQueueName } from '../routes/route-queue-name';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { historyActor } from './history-actor';
import { HISTORY_FILTER_OPTIONS, historyFiltersOf } from './history-filter-options';
import { eventLine } from './history-search-command';
import { cliRoutes, routeNamed } from './open-route-queues';
import { openCliHistory } from './open-cli-history';
import type { CliHistory } from './open-cli-history';
import { openCliRedis } from './open-cli-redis';
import { parseCommandArgs, positiveIntOption } from './parse-command-args';
import { cliLogger } from './cli-logger';
import { logOperatorAction } from '../operations/operator-action';

/**
 * `history replay --route <name> [filters] [--dry-run] [--ignore-route-match] [--rate N] [--json]`:
 * the matching events the route takes (its `match:`, as the live fan-out tests it) delivered to
 * it again from the bodies the history holds (new job ids). `--ignore-route-match` sends the
 * others too, and the audit row says so. `--outcome` with `--route` narrows to the events whose
 * latest attempt there ended so.
 */
export async function historyReplayCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'history replay';
  const { values } = parseCommandArgs(command, args, {
    ...HISTORY_FILTER_OPTIONS,
    'dry-run': { type: 'boolean' },
    'ignore-route-match': { type: 'boolean' },
    rate: { type: 'string' },
  });
  if (values.route === undefined) throw new CliUsageError(`${command}: --route <name> is required`);
  const filters = historyFiltersOf(command, values);
  const rate = positiveIntOption(command, 'rate', values.rate, 50);
  const ignoreRouteMatch = values['ignore-route-match'] === true;
  const { config, routes } = cliRoutes(io.env);
  const route = routeNamed(routes, values.route, command);
  const rule = replayRule(route, ignoreRouteMatch);
  const history = await openCliHistory(io);
  if (history === undefined) return 1;
  try {
    const dry = await previewReplay(history, filters, { takes: replayRule(route, false).takes });
    const text = replayDryRunText(dry, route.name, ignoreRouteMatch);
    if (values['dry-run'] === true || text.sends === 0) {
      printDryRun(io, dry, text, values.json === true);
      return 0;
    }
    io.err(`${text.summary}.`);
    io.err(
      `Replaying ${countOf(text.sends, 'event')} to route ${route.name} at ${String(rate)}/s…`,
    );
    if (ignoreRouteMatch && text.outsideRoute > 0) {
      io.err(
        `  --ignore-route-match: ${String(text.outsideRoute)} of them the route does not take`,
      );
    }
    const run = { route, rule, rate, sends: text.sends, json: values.json === true };
    return await replayOnRoute(io, history, filters, { ...run, queueName: config.QUEUE_NAME });
  } finally {
    await history.db.close();
  }
}

/** The replay itself, on the route's queue: its progress on stderr, its result on stdout. */
async function replayOnRoute(
  io: CliIo,
  history: CliHistory,
  filters: HistoryFilters,
  run: {
    route: Route;
    rule: ReplayRule;
    rate: number;
    sends: number;
    json: boolean;
    queueName: string;
  },
): Promise<number> {
  const { route, rule } = run;
  const redis = await openCliRedis(io.env);
  const queue = new Queue(routeQueueName(run.queueName, route.name), {
    connection: redis.connection,
  });
  const replayId = randomUUID().slice(0, 8);
  const actor = historyActor();
  const cap = { key: runsKey(run.queueName), max: history.config.REPLAY_MAX_RUNNING };
  const client = async () => queue.backend.connection.client;
  const slot = await holdRunSlot(client, cap, {
    replayId,
    kind: 'replay',
    route: route.name,
    actor,
  });
  try {
    if ('refused' in slot) {
      throw new CliUsageError(`history replay: ${slot.refused.message}`, slot.refused.code);
    }
    const result = await replayHistory(history, filters, {
      queue,
      route: route.name,
      jobOptions: routeJobOptions(route, KEEP_COMPLETED_HOURS),
      takes: rule.takes,
      audit: { action: 'replay', details: rule.auditDetails },
      ratePerSecond: run.rate,
      actor,
      replayId,
      onProgress: ({ queued }) => {
        if (queued % 100 === 0) io.err(`  ${String(queued)} of ${String(run.sends)} queued`);
      },
    });
    sayReplayed(io, { actor, route: route.name, json: run.json }, result);
    return 0;
  } finally {
    if (!('refused' in slot)) await slot.release();
    await queue.close();
    await redis.close();
  }
}

/** The replay's `cli action` line, then its answer. */
function sayReplayed(
  io: CliIo,
  { actor, route, json }: { actor: string; route: string; json: boolean },
  result: Awaited<ReturnType<typeof replayHistory>>,
): void {
  logOperatorAction(cliLogger(io), 'cli', {
    actor,
    action: 'replay',
    target: route,
    outcome: result.stopped ? 'stopped' : 'done',
    count: result.queued,
  });
  if (json) {
    io.out(JSON.stringify(result));
    return;
  }
  io.out(
    `${countOf(result.queued, 'event')} queued on route ${route} (replay ${result.replayId}); ${String(result.leftOut)} the route does not take left out; ${String(result.skipped)} without a stored body skipped.`,
  );
}

function printDryRun(
  io: CliIo,
  dry: ReplayDryRun,
  text: ReturnType<typeof replayDryRunText>,
  json: boolean,
): void {
  if (json) {
    io.out(JSON.stringify({ ...dry, sends: text.sends }));
    return;
  }
  io.out(`${text.summary}.`);
  io.out(`A replay sends ${String(text.sends)}; the newest matching your filter:`);
  for (const item of dry.sample) {
    io.out(`  ${eventLine(item)}${item.routeTakes ? '' : '  (the route does not take it)'}`);
  }
}
