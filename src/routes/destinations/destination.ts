import type { CanonicalEvent } from '../../events/canonical-event';

/** What one delivery would send: for `routes test` and for reading, never with a secret. */
export interface DeliveryPreview {
  /** The adapter's kind (destination-adapter.ts). */
  readonly kind: string;
  /**
   * Where it goes, credentials redacted: `amqp://app:***@mq:5672 exchange library-events`;
   * previewDelivery masks the routes file's `${VAR}` values as well.
   */
  readonly target: string;
  /** The rendered routing key, subject, stream or file. */
  readonly address: string;
  /** Message headers or properties (the HTTP signature shown as present, not its value). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * What an adapter's `create` returns (destination-adapter.ts), one per route. `deliver`
 * resolves only once the destination confirmed (2xx, broker confirm, stream ack, fsync) and
 * rejects with a DeliveryError that says whether a retry may help.
 */
export interface Destination {
  /** The adapter's kind: the `destination` of log lines. */
  readonly kind: string;
  /**
   * Where deliveries go, credentials redacted: for log lines. createDestination masks the routes
   * file's `${VAR}` values here and in every failure.
   */
  readonly target: string;
  /**
   * `body` is what the route's `send:` made of the event (JSON text, send-shaper.ts); without it
   * the canonical event is sent. Ids, keys and templates always come from `event` itself.
   */
  deliver(event: CanonicalEvent, body?: string): Promise<void>;
  /** Closes connections and files; deliveries in flight finish first where the client allows. */
  close(): Promise<void>;
}
