import type { CanonicalEvent } from '../events/canonical-event';
import type { RedactSecrets } from './create-secret-redactor';
import { DESTINATION_ADAPTERS } from './destinations';
import type { DeliveryPreview } from './destinations/destination';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { destinationAdapterOf } from './destinations/destination-adapter-of';
import type { AnyRoute } from './routes-file';

export interface PreviewOptions {
  /** REDIS_URL: the default Redis of a redisStream destination. */
  readonly redisUrl: string;
  /** Masks the routes file's substituted values (loadRoutesFile) in every part of the preview. */
  readonly redactSecrets: RedactSecrets;
  readonly adapters?: DestinationAdapterList;
  /** The body `send:` shaped (send-shaper.ts); the canonical event when absent. */
  readonly body?: string;
}

/**
 * What delivering `event` on `route` would send, computed by the adapters' own message builders,
 * with the routes file's secrets shown as `***` wherever they are: target, address, header values
 * and body.
 */
export function previewDelivery(
  route: AnyRoute,
  event: CanonicalEvent,
  options: PreviewOptions,
): DeliveryPreview {
  const { kind } = route.to;
  const { redisUrl, redactSecrets: redact } = options;
  const preview = destinationAdapterOf(options.adapters ?? DESTINATION_ADAPTERS, kind).preview(
    route.to.options,
    event,
    { route: route.name, redisUrl, redactSecrets: redact },
    options.body,
  );
  return {
    kind: preview.kind,
    target: redact(preview.target),
    address: redact(preview.address),
    headers: Object.fromEntries(
      Object.entries(preview.headers).map(([name, value]) => [name, redact(value)]),
    ),
    body: redact(preview.body),
  };
}

/**
 * How a route's destination is shown in a listing (the CLI's `routes`, the console's routes page
 * and `/api/v1/routes`): its target, the routes file's secrets masked. A URL keeps its scheme,
 * host and port as written; substituted parts of it read `***`.
 */
export function shownTarget(route: AnyRoute, redactSecrets: RedactSecrets): string {
  const sample = { id: '0', action: 'none', time: new Date(0).toISOString() };
  return previewDelivery(route, sample, { redisUrl: 'redis://', redactSecrets }).target;
}
