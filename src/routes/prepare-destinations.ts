import { DESTINATION_ADAPTERS } from './destinations';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { destinationAdapterOf } from './destinations/destination-adapter-of';
import type { DestinationContext } from './destinations/destination-context';
import { StartupFileError } from '../startup/startup-file-error';
import { ROUTES_FILE } from './load-routes-file';
import type { AnyRoute } from './routes-file';

/**
 * What can be checked of the destinations before the first event, without a broker: each
 * adapter's own `prepare` (a file destination's directory is created and must be writable). A
 * problem stops the start like a bad routes file, naming the route and the field (never a value).
 */
export function prepareDestinations(
  routes: readonly AnyRoute[],
  context: Omit<DestinationContext, 'route'>,
  adapters: DestinationAdapterList = DESTINATION_ADAPTERS,
): void {
  const problems: string[] = [];
  for (const route of routes) {
    const { kind, options } = route.to;
    const found = destinationAdapterOf(adapters, kind).prepare?.(options, {
      ...context,
      route: route.name,
    });
    for (const { field, problem } of found ?? []) {
      problems.push(`route "${route.name}": to.${kind}.${field}: ${problem}`);
    }
  }
  if (problems.length > 0) throw new StartupFileError(ROUTES_FILE, problems);
}
