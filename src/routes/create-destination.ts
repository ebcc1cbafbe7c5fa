import { DESTINATION_ADAPTERS } from './destinations';
import type { Destination } from './destinations/destination';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { destinationAdapterOf } from './destinations/destination-adapter-of';
import type { DestinationContext } from './destinations/destination-context';
import type { AnyRoute } from './routes-file';

/**
 * The adapter for a route's `to:`, from the list the routes file was read with. Connections open
 * lazily, on the first delivery.
 */
export function createDestination(
  to: AnyRoute['to'],
  context: DestinationContext,
  adapters: DestinationAdapterList = DESTINATION_ADAPTERS,
): Destination {
  return destinationAdapterOf(adapters, to.kind).create(to.options, context);
}
