import { connectAsync } from 'mqtt';
import type { MqttClient } from 'mqtt';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError, noAnswerWithin } from '../delivery-error';
import { redactUrlCredentials } from '../redact-url-credentials';
import { renderTemplate } from '../render-template';
import type { DeliveryPreview, Destination } from './destination';
import type { DestinationAdapter } from './destination-adapter';
import type { DestinationContext } from './destination-context';
import { withTimeout } from '../../with-timeout';
import { atMostBytes, noNul, uncarriable } from './carriable';
import type { CarriedValue, CarryRule } from './carriable';

/** `to: { mqtt: { url, topic, qos?, retain?, timeoutMs? } }` */
export const MqttDestinationOptions = z.strictObject({
  url: z.url({ protocol: /^mqtts?$/ }),
  /** Templates of event fields fill it (`library/{institution}/{action}`); no wildcards. */
  topic: z
    .string()
    .min(1)
    .refine((topic) => !/[#+]/.test(topic), 'no MQTT wildcards (+, #) in a topic to publish to'),
  /** 1 (default): delivered once the broker's PUBACK arrives. 0 has no acknowledgement at all. */
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(1),
  retain: z.boolean().default(false),
  timeoutMs: z.number().int().positive().default(10_000),
});
export type MqttDestinationOptions = z.infer<typeof MqttDestinationOptions>;

export const mqttDestination: DestinationAdapter<MqttDestinationOptions, 'mqtt'> = {
  kind: 'mqtt',
  options: MqttDestinationOptions,
  create: createMqttDestination,
  preview: (options, event, _context, body) => previewMqtt(options, event, body),
};

function previewMqtt(
  options: MqttDestinationOptions,
  event: CanonicalEvent,
  shaped?: string,
): DeliveryPreview {
  return {
    kind: 'mqtt',
    target: targetOf(options),
    address: `topic ${renderTemplate(options.topic, event, { paths: true })}`,
    headers: {
      qos: String(options.qos),
      retain: String(options.retain),
      'x-svc-event-id': event.id,
    },
    body: shaped ?? JSON.stringify(event),
  };
}

/**
 * Publishes to an MQTT broker (mqtt.js, MQTT 5): QoS 1 by default, so a delivery counts on the
 * broker's PUBACK. The event id travels as the user property `x-svc-event-id` for receivers to
 * de-duplicate a redelivery (QoS 1 is at least once). The connection opens on the first
 * delivery and the client reconnects by itself.
 */
export function createMqttDestination(
  options: MqttDestinationOptions,
  context: DestinationContext,
): Destination {
  const target = targetOf(options);
  let client: Promise<MqttClient> | undefined;
  const open = (): Promise<MqttClient> => {
    client ??= connectAsync(options.url, {
      protocolVersion: 5,
      connectTimeout: options.timeoutMs,
      reconnectPeriod: 1000,
    }).then((connected) => {
      connected.on('error', () => undefined);
      return connected;
    });
    client.catch(() => {
      client = undefined;
    });
    return client;
  };
  return {
    kind: 'mqtt',
    target,
    deliver: async (event, shaped) => {
      const topic = renderTemplate(options.topic, event, { paths: true });
      const payload = shaped ?? JSON.stringify(event);
      const userProperties = { 'x-svc-event-id': event.id, 'x-svc-route': context.route };
      const refused = uncarriable(target, mqttValues(topic, payload, userProperties));
      if (refused !== undefined) throw refused;
      try {
        const timedOut = (): Error => noAnswerWithin(target, options.timeoutMs);
        const connected = await withTimeout(open(), options.timeoutMs, timedOut);
        await withTimeout(
          connected.publishAsync(topic, payload, {
            qos: options.qos,
            retain: options.retain,
            properties: { contentType: 'application/json', userProperties },
          }),
          options.timeoutMs,
          timedOut,
        );
      } catch (error) {
        if (error instanceof DeliveryError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw new DeliveryError(`${target}: ${redactUrlCredentials(message)}`, {
          retryable: true,
          cause: error,
        });
      }
    },
    close: async () => {
      const opened = client;
      client = undefined;
      if (opened) await (await opened.catch(() => undefined))?.endAsync();
    },
  };
}

/** MQTT 5 strings (topic, user properties) are at most 65,535 bytes of UTF-8, without NUL. */
const MQTT_STRING = [atMostBytes(65_535), noNul];
/** A packet's length is a variable byte integer of at most 268,435,455: the payload stays under. */
const MQTT_PAYLOAD = [atMostBytes(268_435_455 - 4 * 65_535)];
/** A topic published to names one topic: no wildcard. */
const NO_WILDCARD: CarryRule = (topic) =>
  /[+#]/.test(topic) ? 'holds a wildcard (+ or #)' : undefined;

function* mqttValues(
  topic: string,
  payload: string,
  userProperties: Readonly<Record<string, string>>,
): Generator<CarriedValue> {
  yield ['topic', topic, [...MQTT_STRING, NO_WILDCARD]];
  for (const [name, value] of Object.entries(userProperties)) {
    yield [`user property ${name}`, value, MQTT_STRING];
  }
  yield ['payload', payload, MQTT_PAYLOAD];
}

function targetOf(options: MqttDestinationOptions): string {
  return `${redactUrlCredentials(options.url)} topic ${options.topic}`;
}
