import type { HttpError } from '../../http/http-error';
import { consoleError } from './console-error';

/**
 * Why the console cannot act on a route it did not read at its start: 409 `route_not_in_console`
 * when a worker runs it (added to the routes file since: restart the console), else 404. A registry
 * that cannot be read says nothing of the route: 404, as before it existed.
 */
export async function missingRoute(
  name: string,
  routesRunByWorkers: (() => Promise<readonly string[]>) | undefined,
): Promise<HttpError> {
  const run = (await routesRunByWorkers?.().catch(() => [])) ?? [];
  return run.includes(name)
    ? consoleError.routeNotInConsole(name)
    : consoleError.notFound(`route ${name}`);
}
