import { connect, headers as natsHeaders } from 'nats';
import type { NatsConnection } from 'nats';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError, unsendable } from '../delivery-error';
import { noLineBreak, uncarriable } from './carriable';
import type { CarriedValue, CarryRule } from './carriable';
import { injectTraceContext } from '../../tracing/inject-trace-context';
import { redactUrlCredentials } from '../redact-url-credentials';
import { renderTemplate } from '../render-template';
import type { DeliveryPreview, Destination } from './destination';
import type { DestinationAdapter } from './destination-adapter';
import type { DestinationContext } from './destination-context';

/** `to: { nats: { servers, subject } }` */
export const NatsDestinationOptions = z.strictObject({
  servers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  subject: z.string().min(1),
  /** Longest wait for the stream's ack. */
  timeoutMs: z.number().int().positive().default(5000),
});
export type NatsDestinationOptions = z.infer<typeof NatsDestinationOptions>;

export const natsDestination: DestinationAdapter<NatsDestinationOptions, 'nats'> = {
  kind: 'nats',
  options: NatsDestinationOptions,
  create: createNatsDestination,
  preview: (options, event, context, body) => previewNats(options, event, context.route, body),
};

/** JetStream answers a publish to a subject no stream covers with 503 (no responders). */
const NO_STREAM = '503';
/** The client's code for a message over the server's `max_payload` (1 MB by default). */
const MAX_PAYLOAD_EXCEEDED = 'MAX_PAYLOAD_EXCEEDED';

/** A subject is tokens joined by dots: no whitespace, no empty token, no wildcard to publish to. */
const SUBJECT: readonly CarryRule[] = [
  (subject) => (/\s/.test(subject) ? 'holds whitespace' : undefined),
  (subject) => (/^\.|\.\.|\.$|^$/.test(subject) ? 'has an empty token' : undefined),
  (subject) => (/(^|\.)(\*|>)(\.|$)/.test(subject) ? 'holds a wildcard (* or >)' : undefined),
];

function* natsValues(
  subject: string,
  headers: Readonly<Record<string, string>>,
): Generator<CarriedValue> {
  yield ['subject', subject, SUBJECT];
  for (const [name, value] of Object.entries(headers)) {
    yield [`header ${name}`, value, [noLineBreak]];
  }
}

function previewNats(
  options: NatsDestinationOptions,
  event: CanonicalEvent,
  route: string,
  shaped?: string,
): DeliveryPreview {
  return {
    kind: 'nats',
    target: targetOf(options),
    address: `subject ${renderTemplate(options.subject, event)}`,
    headers: { 'Nats-Msg-Id': event.id, 'X-Svc-Event-Action': event.action, 'X-Svc-Route': route },
    body: shaped ?? JSON.stringify(event),
  };
}

/**
 * NATS JetStream through the official client. `Nats-Msg-Id` = the event id, so JetStream itself
 * drops a second publish of the same event within the stream's duplicate window; a delivery
 * counts on the stream's ack. The connection opens on the first delivery and reconnects by
 * itself; one that could not open is tried again on the next attempt.
 */
export function createNatsDestination(
  options: NatsDestinationOptions,
  context: DestinationContext,
): Destination {
  const target = targetOf(options);
  let connection: Promise<NatsConnection> | undefined;
  const open = (): Promise<NatsConnection> => {
    connection ??= connect({
      servers: options.servers,
      timeout: options.timeoutMs,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      name: `svcws-route-${context.route}`,
    }).catch((error: unknown) => {
      connection = undefined;
      throw error;
    });
    return connection;
  };
  return {
    kind: 'nats',
    target,
    deliver: async (event, shaped) => {
      const subject = renderTemplate(options.subject, event);
      const values: Record<string, string> = {
        'Nats-Msg-Id': event.id,
        'X-Svc-Event-Action': event.action,
        'X-Svc-Route': context.route,
      };
      injectTraceContext((key, value) => (values[key] = value));
      const refused = uncarriable(target, natsValues(subject, values));
      if (refused !== undefined) throw refused;
      const headers = natsHeaders();
      for (const [key, value] of Object.entries(values)) {
        // The client sets Nats-Msg-Id from msgID.
        if (key !== 'Nats-Msg-Id') headers.set(key, value);
      }
      try {
        const nc = await open();
        await nc.jetstream().publish(subject, shaped ?? JSON.stringify(event), {
          msgID: event.id,
          headers,
          timeout: options.timeoutMs,
        });
      } catch (error) {
        throw classify(error, target, subject);
      }
    },
    close: async () => {
      const opened = connection;
      connection = undefined;
      if (opened === undefined) return;
      const nc = await opened.catch(() => undefined);
      await nc?.drain().catch(() => undefined);
    },
  };
}

function classify(error: unknown, target: string, subject: string): DeliveryError {
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === MAX_PAYLOAD_EXCEEDED) {
    return unsendable(target, 'payload', "is over the server's max_payload");
  }
  if (code === NO_STREAM) {
    // A configuration fault: the same publish fails the same way until a stream is created.
    return new DeliveryError(`${target}: no JetStream stream covers subject ${subject}`, {
      retryable: false,
      code: 'no_stream',
    });
  }
  const text = error instanceof Error ? error.message : String(error);
  return new DeliveryError(`${target}: ${redactUrlCredentials(text)}`, {
    retryable: true,
    cause: error,
  });
}

function targetOf(options: NatsDestinationOptions): string {
  const servers = Array.isArray(options.servers) ? options.servers.join(',') : options.servers;
  return `nats ${redactUrlCredentials(servers)} subject ${options.subject}`;
}
