import { amqpDestination } from './amqp';
import { fileDestination } from './file';
import { httpDestination } from './http';
import { mqttDestination } from './mqtt';
import { natsDestination } from './nats';
import { postgresDestination } from './postgres';
import { redisStreamDestination } from './redis-stream';

/**
 * Every destination a route may deliver to, in the order the routes file's messages name them.
 * The routes file's `to:`, creation, `routes test` and the start-up check all read this list:
 * adding a destination is its adapter file (destination-adapter.ts) and one line here.
 */
export const DESTINATION_ADAPTERS = [
  httpDestination,
  amqpDestination,
  natsDestination,
  redisStreamDestination,
  fileDestination,
  postgresDestination,
  mqttDestination,
] as const;

/** The keys of `to:` in the routes file. */
export type DestinationKind = (typeof DESTINATION_ADAPTERS)[number]['kind'];

export const DESTINATION_KINDS: readonly DestinationKind[] = DESTINATION_ADAPTERS.map(
  (adapter) => adapter.kind,
);
