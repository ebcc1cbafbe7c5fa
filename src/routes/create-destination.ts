import { createAmqpDestination } from './destinations/amqp';
import type { Destination } from './destinations/destination';
import type { DestinationContext } from './destinations/destination-context';
import { createFileDestination } from './destinations/file';
import { createHttpDestination } from './destinations/http';
import { createMqttDestination } from './destinations/mqtt';
import { createNatsDestination } from './destinations/nats';
import { createPostgresDestination } from './destinations/postgres';
import { createRedisStreamDestination } from './destinations/redis-stream';
import type { RouteDestination } from './routes-file';

/** The adapter for a route's `to:`. Connections open lazily, on the first delivery. */
export function createDestination(to: RouteDestination, context: DestinationContext): Destination {
  switch (to.kind) {
    case 'http':
      return createHttpDestination(to.options, context.route);
    case 'amqp':
      return createAmqpDestination(to.options, context);
    case 'nats':
      return createNatsDestination(to.options, context);
    case 'redisStream':
      return createRedisStreamDestination(to.options, context);
    case 'file':
      return createFileDestination(to.options);
    case 'postgres':
      return createPostgresDestination(to.options);
    case 'mqtt':
      return createMqttDestination(to.options, context);
  }
}
