import { Queue } from 'bullmq';
import { previewReplay, replayHistory } from '../history';
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
import { openCliRedis } from './open-cli-redis';
import { parseCommandArgs, positiveIntOption } from './parse-command-args';

/**
 * `history replay --route <name> [filters] [--dry-run] [--rate N] [--json]`: the matching
 * events delivered to that route again from the bodies the history holds (new job ids).
 * `--outcome` with `--route` narrows to the events whose latest attempt there ended so.
 */
export async function historyReplayCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'history replay';
  const { values } = parseCommandArgs(command, args, {
    ...HISTORY_FILTER_OPTIONS,
    'dry-run': { type: 'boolean' },
    rate: { type: 'string' },
  });
  if (values.route === undefined) throw new CliUsageError(`${command}: --route <name> is required`);
  const filters = historyFiltersOf(command, values);
  const rate = positiveIntOption(command, 'rate', values.rate, 50);
  const { config, routes } = cliRoutes(io.env);
  const route = routeNamed(routes, values.route, command);
  const history = await openCliHistory(io);
  if (history === undefined) return 1;
  try {
    const dry = await previewReplay(history, filters);
    if (values['dry-run'] === true || dry.count === 0) {
      if (values.json === true) io.out(JSON.stringify(dry));
      else {
        io.out(`${String(dry.count)} events match; the newest:`);
        for (const item of dry.sample) io.out(`  ${eventLine(item)}`);
      }
      return 0;
    }
    const redis = await openCliRedis(io.env);
    const queue = new Queue(routeQueueName(config.QUEUE_NAME, route.name), {
      connection: redis.connection,
    });
    try {
      io.err(`Replaying ${String(dry.count)} events to route ${route.name} at ${String(rate)}/s…`);
      const result = await replayHistory(history, filters, {
        queue,
        route: route.name,
        jobOptions: routeJobOptions(route, KEEP_COMPLETED_HOURS),
        ratePerSecond: rate,
        actor: historyActor(),
        onProgress: ({ queued }) => {
          if (queued % 100 === 0) io.err(`  ${String(queued)} of ${String(dry.count)} queued`);
        },
      });
      if (values.json === true) io.out(JSON.stringify(result));
      else {
        io.out(
          `${String(result.queued)} events queued on route ${route.name} (replay ${result.replayId}); ${String(result.skipped)} without a stored body skipped.`,
        );
      }
      return 0;
    } finally {
      await queue.close();
      await redis.close();
    }
  } finally {
    await history.db.close();
  }
}
