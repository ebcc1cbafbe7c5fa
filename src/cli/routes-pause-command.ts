import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { openRouteQueues, routeNamed } from './open-route-queues';
import { parseCommandArgs } from './parse-command-args';
import { keepCliAction } from './keep-cli-action';
import { routeWaitingCount } from '../routes/route-waiting-count';
import { setRoutePaused } from '../routes/set-route-paused';

/**
 * `routes pause <name>` / `routes resume <name>`: BullMQ's queue pause, which holds for every
 * worker process, inline attempts included, once the command answers (about a second after the
 * pause). Events keep arriving and wait in the route's queue; nothing is dropped.
 */
export async function routesPauseCommand(
  verb: 'pause' | 'resume',
  args: string[],
  io: CliIo,
): Promise<number> {
  const command = `routes ${verb}`;
  const { positionals } = parseCommandArgs(command, args, {});
  if (positionals.length !== 1) throw new CliUsageError(`${command}: give one route name`);
  const cli = await openRouteQueues(io.env);
  try {
    const route = routeNamed(cli.routes, positionals[0], command);
    const queue = cli.queues.get(route.name);
    if (queue === undefined) return 1;
    // Resolves once the pause holds in every process (set-route-paused.ts).
    await setRoutePaused(queue, verb === 'pause');
    const waiting = await routeWaitingCount(queue);
    await keepCliAction(
      io,
      cli,
      {
        action: verb,
        target: `route ${route.name}`,
        outcome: 'done',
        count: waiting,
      },
      { details: { route: route.name, waiting } },
    );
    io.out(
      `✓ route ${route.name} ${verb === 'pause' ? 'paused' : 'resumed'} (${String(waiting)} waiting).`,
    );
    return 0;
  } finally {
    await cli.close();
  }
}
