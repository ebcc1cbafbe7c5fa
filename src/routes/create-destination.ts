import type { RedactSecrets } from './create-secret-redactor';
import { asDeliveryError, redactedDeliveryError } from './delivery-error';
import { DESTINATION_ADAPTERS } from './destinations';
import type { Destination } from './destinations/destination';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { destinationAdapterOf } from './destinations/destination-adapter-of';
import type { DestinationContext } from './destinations/destination-context';
import type { HttpDestinationOptions } from './destinations/http';
import type { AnyRoute } from './routes-file';

/**
 * The adapter for a route's `to:`, from the list the routes file was read with. Connections open
 * lazily, on the first delivery. `userAgent` (product-user-agent.ts): the `User-Agent` of an HTTP
 * destination's requests, unless the route's own `headers:` name one. With
 * `context.redactSecrets`, its target and every failure's message are masked here, once for every
 * adapter: a log line, a span, a failed reason in Redis, the history and the figures all take
 * their text from these.
 */
export function createDestination(
  to: AnyRoute['to'],
  context: DestinationContext,
  adapters: DestinationAdapterList = DESTINATION_ADAPTERS,
  userAgent?: string,
): Destination {
  const options =
    to.kind === 'http' && userAgent !== undefined
      ? withUserAgent(to.options as HttpDestinationOptions, userAgent)
      : to.options;
  const destination = destinationAdapterOf(adapters, to.kind).create(options, context);
  const redact = context.redactSecrets;
  return redact === undefined ? destination : maskedDestination(destination, redact);
}

function maskedDestination(destination: Destination, redact: RedactSecrets): Destination {
  const target = redact(destination.target);
  return {
    kind: destination.kind,
    target,
    deliver: async (event, body) => {
      try {
        await destination.deliver(event, body);
      } catch (error) {
        throw redactedDeliveryError(asDeliveryError(error, target), redact);
      }
    },
    close: () => destination.close(),
  };
}

function withUserAgent(options: HttpDestinationOptions, userAgent: string): HttpDestinationOptions {
  const headers = options.headers ?? {};
  // Header names are case-insensitive: a route's own `User-Agent` wins, and is not doubled.
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) return options;
  // A version has no `{…}`: the adapter's template filling leaves it as it is.
  return { ...options, headers: { 'user-agent': userAgent, ...headers } };
}
