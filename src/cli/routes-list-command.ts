import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { openRouteQueues } from './open-route-queues';
import { parseCommandArgs } from './parse-command-args';
import { shownTarget } from '../routes/preview-delivery';
import type { RouteFigures } from '../routes/read-route-figures';
import { readRouteReport } from '../routes/read-route-report';
import { routeQueueCounts } from '../routes/route-queue-counts';
import type { RouteState } from '../routes/route-state';

/**
 * `routes`: each route of ROUTES_FILE with its destination, its state (route-state.ts), its queue
 * (waiting, active, delayed, failed) and its attempts of the last hour, inline and queued alike
 * (read-route-figures.ts: the figures the console shows).
 */
export async function routesListCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('routes', args, { json: { type: 'boolean' } });
  if (positionals.length > 0)
    throw new CliUsageError(`routes: unexpected argument '${positionals[0] ?? ''}'`);
  const cli = await openRouteQueues(io.env);
  // The last errors come masked from the figures; what was kept before that is masked here.
  const out = (text: string): void => io.out(cli.redactSecrets(text));
  try {
    const rows = [];
    for (const route of cli.routes) {
      const queue = cli.queues.get(route.name);
      if (queue === undefined) continue;
      const [counts, { figures, state }] = await Promise.all([
        routeQueueCounts(queue),
        readRouteReport(cli.connection, queue, route),
      ]);
      rows.push({
        route: route.name,
        destination: route.to.kind,
        target: shownTarget(route, cli.redactSecrets),
        ...state,
        ...counts,
        lastHour: figures.lastHour,
        p95DeliveryMs: figures.p95DeliveryMs,
        last: figures.last,
        paused: state.state === 'paused',
        circuit:
          route.circuit === 'off' ? 'off' : state.circuitOpenUntil === null ? 'closed' : 'open',
      });
    }
    if (values.json === true) {
      out(JSON.stringify(rows, null, 2));
      return 0;
    }
    if (rows.length === 0) out('No routes in ROUTES_FILE.');
    for (const row of rows) out(routeLines(row));
    return 0;
  } finally {
    await cli.close();
  }
}

type Row = RouteState &
  Pick<RouteFigures, 'lastHour' | 'p95DeliveryMs' | 'last'> & {
    route: string;
    destination: string;
    target: string;
    waiting: number;
    active: number;
    delayed: number;
    failed: number;
  };

/** Three lines a route: who and its state; its queue and last hour; its last result. */
function routeLines(row: Row): string {
  const n = String;
  const { lastHour, last } = row;
  const p95 = row.p95DeliveryMs === null ? '—' : `${n(row.p95DeliveryMs)} ms`;
  return (
    `${row.route}  ${row.destination}  ${row.target}  ${stateText(row)}\n` +
    `  waiting ${n(row.waiting)}  active ${n(row.active)}  delayed ${n(row.delayed)}  failed ${n(row.failed)}\n` +
    `  last hour: delivered ${n(lastHour.delivered)}  retrying ${n(lastHour.retrying)}  failed ${n(lastHour.failed)}  p95 ${p95}\n` +
    `  last result: ${last === null ? '—' : `${last.result} at ${last.at} (attempt ${n(last.attempt)})${last.error === null ? '' : `: ${last.error}`}`}`
  );
}

function stateText({ state, failing, circuitOpenUntil }: RouteState): string {
  const upper = state.toUpperCase();
  if (state === 'circuit open' && circuitOpenUntil !== null)
    return `${upper} until ${circuitOpenUntil}`;
  if (state === 'failing' && failing !== null) {
    return `${upper} since ${failing.since} (${String(failing.attempts)} attempts failed: ${failing.lastError})`;
  }
  return upper;
}
