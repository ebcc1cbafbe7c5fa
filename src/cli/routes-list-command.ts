import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { openRouteQueues } from './open-route-queues';
import { parseCommandArgs } from './parse-command-args';
import { isCircuitOpen } from '../routes/circuit-breaker';
import { previewDelivery } from '../routes/preview-delivery';

/**
 * `routes`: each route of ROUTES_FILE with its destination and its queue — waiting, delayed,
 * failed, delivered (kept for the dedup window) and whether it is paused.
 */
export async function routesListCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('routes', args, { json: { type: 'boolean' } });
  if (positionals.length > 0)
    throw new CliUsageError(`routes: unexpected argument '${positionals[0] ?? ''}'`);
  const cli = await openRouteQueues(io.env);
  try {
    const rows = [];
    for (const route of cli.routes) {
      const queue = cli.queues.get(route.name);
      if (queue === undefined) continue;
      const counts = await queue.getJobCounts(
        'wait',
        'prioritized',
        'active',
        'delayed',
        'failed',
        'completed',
      );
      const target = previewTarget(route);
      rows.push({
        route: route.name,
        destination: route.to.kind,
        target,
        waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
        delivered: counts.completed ?? 0,
        paused: await queue.isPaused(),
        circuit:
          route.circuit === 'off'
            ? 'off'
            : (await isCircuitOpen(cli.connection, queue))
              ? 'open'
              : 'closed',
      });
    }
    if (values.json === true) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    if (rows.length === 0) io.out('No routes in ROUTES_FILE.');
    for (const row of rows) {
      io.out(
        `${row.route}  ${row.destination}  ${row.target}${row.paused ? '  PAUSED' : ''}${row.circuit === 'open' ? '  CIRCUIT OPEN' : ''}\n` +
          `  waiting ${String(row.waiting)}  active ${String(row.active)}  delayed ${String(row.delayed)}  failed ${String(row.failed)}  delivered ${String(row.delivered)}`,
      );
    }
    return 0;
  } finally {
    await cli.close();
  }
}

function previewTarget(route: Parameters<typeof previewDelivery>[0]): string {
  const sample = { id: '0', action: 'none', time: new Date(0).toISOString() };
  return previewDelivery(route, sample, 'redis://').target;
}
