import type { CanonicalEvent } from '../events/canonical-event';
import { previewAmqp } from './destinations/amqp';
import type { DeliveryPreview } from './destinations/destination';
import { previewFile } from './destinations/file';
import { previewHttp } from './destinations/http';
import { previewNats } from './destinations/nats';
import { previewRedisStream } from './destinations/redis-stream';
import type { Route } from './routes-file';

/** What delivering `event` on `route` would send, computed by the adapters' own message builders. */
export function previewDelivery(
  route: Route,
  event: CanonicalEvent,
  redisUrl: string,
): DeliveryPreview {
  const to = route.to;
  switch (to.kind) {
    case 'http':
      return previewHttp(to.options, event, route.name);
    case 'amqp':
      return previewAmqp(to.options, event, route.name);
    case 'nats':
      return previewNats(to.options, event, route.name);
    case 'redisStream':
      return previewRedisStream(to.options, event, { redisUrl });
    case 'file':
      return previewFile(to.options, event);
  }
}
