import type { CanonicalEvent } from '../events/canonical-event';
import { previewAmqp } from './destinations/amqp';
import type { DeliveryPreview } from './destinations/destination';
import { previewFile } from './destinations/file';
import { previewHttp } from './destinations/http';
import { previewMqtt } from './destinations/mqtt';
import { previewNats } from './destinations/nats';
import { previewPostgres } from './destinations/postgres';
import { previewRedisStream } from './destinations/redis-stream';
import type { Route } from './routes-file';

/** What delivering `event` on `route` would send, computed by the adapters' own message builders. */
export function previewDelivery(
  route: Route,
  event: CanonicalEvent,
  redisUrl: string,
  /** The body `send:` shaped (send-shaper.ts); the canonical event when absent. */
  body?: string,
): DeliveryPreview {
  const to = route.to;
  switch (to.kind) {
    case 'http':
      return previewHttp(to.options, event, route.name, body);
    case 'amqp':
      return previewAmqp(to.options, event, route.name, body);
    case 'nats':
      return previewNats(to.options, event, route.name, body);
    case 'redisStream':
      return previewRedisStream(to.options, event, { redisUrl }, body);
    case 'file':
      return previewFile(to.options, event, body);
    case 'postgres':
      return previewPostgres(to.options, event, body);
    case 'mqtt':
      return previewMqtt(to.options, event, body);
  }
}
