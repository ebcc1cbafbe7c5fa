import { Connection } from 'rabbitmq-client';
import type { Envelope, Publisher } from 'rabbitmq-client';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError, noAnswerWithin } from '../delivery-error';
import { injectTraceContext } from '../../tracing/inject-trace-context';
import { redactUrlCredentials } from '../redact-url-credentials';
import { renderTemplate } from '../render-template';
import type { DeliveryPreview, Destination } from './destination';
import type { DestinationAdapter } from './destination-adapter';
import type { DestinationContext } from './destination-context';
import { errnoCode as codeOf } from '../../errno-code';
import { messageOf } from '../../message-of';
import { withTimeout } from '../../with-timeout';
import { atMostBytes, uncarriable } from './carriable';
import type { CarriedValue } from './carriable';
import { errField } from '../../err-field';

/** `to: { amqp: { url, exchange, routingKey? } }` */
export const AmqpDestinationOptions = z.strictObject({
  url: z.url({ protocol: /^amqps?$/ }),
  exchange: z.string().min(1),
  routingKey: z.string().default('{action}.{event}'),
  /** Longest wait for the broker (channel, then confirm) before the attempt counts as failed. */
  timeoutMs: z.number().int().positive().default(10_000),
});
export type AmqpDestinationOptions = z.infer<typeof AmqpDestinationOptions>;

export const amqpDestination: DestinationAdapter<AmqpDestinationOptions, 'amqp'> = {
  kind: 'amqp',
  options: AmqpDestinationOptions,
  create: createAmqpDestination,
  preview: (options, event, context, body) => previewAmqp(options, event, context.route, body),
};

/**
 * The message one event makes: persistent, ids in its properties, the canonical JSON as body, and
 * `mandatory`, so that the broker returns a message no queue takes instead of dropping it.
 */
function amqpMessageOf(
  options: AmqpDestinationOptions,
  event: CanonicalEvent,
  route: string,
  shaped?: string,
): { envelope: Envelope; body: Buffer } {
  return {
    envelope: {
      exchange: options.exchange,
      routingKey: renderTemplate(options.routingKey, event),
      messageId: event.id,
      contentType: 'application/json',
      durable: true,
      mandatory: true,
      headers: { 'x-svc-event-action': event.action, 'x-svc-route': route },
    },
    body: Buffer.from(shaped ?? JSON.stringify(event)),
  };
}

function previewAmqp(
  options: AmqpDestinationOptions,
  event: CanonicalEvent,
  route: string,
  shaped?: string,
): DeliveryPreview {
  const { envelope, body } = amqpMessageOf(options, event, route, shaped);
  return {
    kind: 'amqp',
    target: targetOf(options),
    address: `exchange ${options.exchange}, routing key ${envelope.routingKey ?? ''}`,
    headers: {
      messageId: event.id,
      contentType: 'application/json',
      deliveryMode: '2 (persistent)',
      mandatory: 'true (unroutable: returned, the delivery fails)',
      'x-svc-event-action': event.action,
      'x-svc-route': route,
    },
    body: body.toString('utf8'),
  };
}

/**
 * RabbitMQ (AMQP 0-9-1) through rabbitmq-client, which reconnects by itself. Publisher confirms:
 * a delivery counts only once the broker confirmed it. Published `mandatory`: a message that no
 * bound queue takes is returned (basic.return, then the confirm) and the delivery fails, retried
 * like any other failure, instead of being confirmed and dropped by the broker. The exchange is
 * used as it exists and declared as a durable topic exchange only when absent (a passive declare
 * answers NOT_FOUND); the check runs again after any failed publish, so an exchange deleted later
 * comes back.
 */
export function createAmqpDestination(
  options: AmqpDestinationOptions,
  context: DestinationContext,
): Destination {
  const target = targetOf(options);
  const { rabbit, publisher, returned } = openConfirmingPublisher(options, context, target);
  const exchange = exchangeCheck(rabbit, options.exchange);
  return {
    kind: 'amqp',
    target,
    deliver: async (event, shaped) => {
      const { envelope, body } = amqpMessageOf(options, event, context.route, shaped);
      injectTraceContext(
        (key, value) => (envelope.headers = { ...envelope.headers, [key]: value }),
      );
      const refused = uncarriable(target, amqpValues(envelope, body));
      if (refused !== undefined) throw refused;
      returned.delete(event.id);
      try {
        const timedOut = (): Error => noAnswerWithin(target, options.timeoutMs);
        await withTimeout(exchange.ready(), options.timeoutMs, timedOut);
        await withTimeout(publisher.send(envelope, body), options.timeoutMs, timedOut);
        // The broker sends basic.return before the confirm, but the client emits it on a later
        // turn (setImmediate): one turn more and it has been seen.
        await new Promise<void>((resolve) => setImmediate(resolve));
      } catch (error) {
        exchange.forget();
        if (error instanceof DeliveryError) throw error;
        // Broker away, channel closed, nack: all may pass on a later attempt.
        throw new DeliveryError(`${target}: ${brokerMessageOf(error)}`, {
          retryable: true,
          cause: error,
        });
      }
      const reason = returned.get(event.id);
      if (reason !== undefined) {
        returned.delete(event.id);
        // A consumer's queue may be bound (again) later: retried, then the failed set for replay.
        throw new DeliveryError(
          `${target}: unroutable: no queue is bound for routing key ${envelope.routingKey ?? ''} (${reason})`,
          { retryable: true, code: 'unroutable' },
        );
      }
    },
    close: async () => {
      await publisher.close().catch(() => undefined);
      await rabbit.close().catch(() => undefined);
    },
  };
}

/**
 * The connection (reconnecting by itself, its errors logged redacted) and a publisher with
 * confirms; `returned` maps an event id to why the broker returned its message (basic.return).
 */
function openConfirmingPublisher(
  options: AmqpDestinationOptions,
  context: DestinationContext,
  target: string,
): { rabbit: Connection; publisher: Publisher; returned: Map<string, string> } {
  const rabbit = new Connection({
    url: options.url,
    connectionTimeout: options.timeoutMs,
    acquireTimeout: options.timeoutMs,
    retryLow: 200,
    retryHigh: 5000,
  });
  const redact = context.redactSecrets ?? redactUrlCredentials;
  rabbit.on('error', (error: unknown) => {
    context.logger.warn(
      {
        route: context.route,
        target: redact(target),
        err: errField(error, { redact: (text) => redact(redactUrlCredentials(text)) }),
      },
      'amqp connection error',
    );
  });
  const publisher = rabbit.createPublisher({ confirm: true, maxAttempts: 1 });
  // Event id → why the broker returned it. One route delivers an event once at a time.
  const returned = new Map<string, string>();
  publisher.on('basic.return', (message) => {
    if (typeof message.messageId === 'string') {
      returned.set(message.messageId, `${String(message.replyCode)} ${message.replyText}`);
    }
  });
  return { rabbit, publisher, returned };
}

/**
 * The exchange, used as it exists and declared a durable topic exchange only when absent (a
 * passive declare answers NOT_FOUND). Checked once; `forget()` after a failed publish makes the
 * next delivery check again.
 */
function exchangeCheck(
  rabbit: Connection,
  exchange: string,
): { ready(): Promise<void>; forget(): void } {
  let checked: Promise<void> | undefined;
  const ensure = async (): Promise<void> => {
    try {
      await rabbit.exchangeDeclare({ exchange, passive: true });
    } catch (error) {
      if (codeOf(error) !== 'NOT_FOUND') throw error;
      await rabbit.exchangeDeclare({ exchange, type: 'topic', durable: true });
    }
  };
  return {
    ready: () => (checked ??= ensure()),
    forget: () => {
      checked = undefined;
    },
  };
}

/** AMQP 0-9-1 short strings (message id, routing key, a header's name) are at most 255 bytes. */
const SHORT_STRING = [atMostBytes(255)];
/** RabbitMQ's default `max_message_size` (128 MiB): a larger body is refused by the broker. */
const MAX_MESSAGE_BYTES = 134_217_728;

function* amqpValues(envelope: Envelope, body: Buffer): Generator<CarriedValue> {
  yield ['messageId', envelope.messageId ?? '', SHORT_STRING];
  yield ['routingKey', envelope.routingKey ?? '', SHORT_STRING];
  for (const name of Object.keys(envelope.headers ?? {})) {
    yield [`header name ${name.slice(0, 64)}`, name, SHORT_STRING];
  }
  if (body.length > MAX_MESSAGE_BYTES) {
    yield ['body', '', [() => `is over ${MAX_MESSAGE_BYTES.toLocaleString('en')} bytes`]];
  }
}

function targetOf(options: AmqpDestinationOptions): string {
  return `${redactUrlCredentials(options.url)} exchange ${options.exchange}`;
}

/** The broker's message with its code (`ECONNREFUSED: …`), credentials in URLs redacted. */
function brokerMessageOf(error: unknown): string {
  const text = messageOf(error, { withCause: false });
  const code = codeOf(error);
  return redactUrlCredentials(
    code !== undefined && !text.includes(code) ? `${code}: ${text}` : text,
  );
}
