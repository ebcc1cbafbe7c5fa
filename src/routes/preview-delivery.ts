import type { CanonicalEvent } from '../events/canonical-event';
import { DESTINATION_ADAPTERS } from './destinations';
import type { DeliveryPreview } from './destinations/destination';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { destinationAdapterOf } from './destinations/destination-adapter-of';
import type { AnyRoute } from './routes-file';

/** What delivering `event` on `route` would send, computed by the adapters' own message builders. */
export function previewDelivery(
  route: AnyRoute,
  event: CanonicalEvent,
  redisUrl: string,
  adapters: DestinationAdapterList = DESTINATION_ADAPTERS,
  /** The body `send:` shaped (send-shaper.ts); the canonical event when absent. */
  body?: string,
): DeliveryPreview {
  const { kind, options } = route.to;
  return destinationAdapterOf(adapters, kind).preview(
    options,
    event,
    { route: route.name, redisUrl },
    body,
  );
}
