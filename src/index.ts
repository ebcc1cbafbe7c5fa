// The package's one public entry: the product's own pieces. Composition roots live in src/bin and
// are not exported; the API client is its own package, imported as @svcws/client.
export {
  ConfigError,
  loadConfig,
  EnvSchema,
  envValue,
  WebConfig,
  WorkerConfig,
  ClientConfig,
} from './config';
export { createLogger } from './logger';
export type { Logger } from './logger';

// listener
export { createApp } from './http/create-app';
export type { CreateAppOptions } from './http/create-app';
export { createSignatureVerifier } from './http/webhook-signature';
export { signWebhookBody } from './signature/sign-webhook-body';
export { HttpError } from './http/http-error';

// events
export {
  CanonicalEvent,
  CodeValue,
  EventMeta,
  normalizeEvent,
  parseJsonEvent,
  parseXmlEvent,
  InvalidEventError,
  createEventEnqueuer,
  jobIdForEvent,
  MAX_NESTING_DEPTH,
  JobEndSubject,
  LoanSubject,
  RequestSubject,
  BibSubject,
  ItemSubject,
  UserSubject,
  NotificationSubject,
  // Every kind, one file each (events/kinds/*): its schema, personal paths, identifiers, samples.
  eventKinds,
  // Personal data, one list (events/kinds/*: `personal`): what mask: patron and the history use.
  isPatronEvent,
  personalValuesOf,
  withoutPersonalData,
} from './events';
export type {
  EnqueueEvent,
  EnqueueResult,
  EventEnqueuerOptions,
  EventKind,
  RecordColumn,
  SampleBody,
  SampleSeed,
} from './events';
export { createEventQueue } from './events/create-event-queue';
export type { EventQueue } from './events/create-event-queue';
export { openProducerConnection } from './redis/open-producer-connection';
export { closeRedis } from './redis/close-redis';

// processes: the shutdown every composition root shares
export { runUntilSignal } from './process/run-until-signal';
export type { RunUntilSignalOptions, ShutdownStep, SignalHandle } from './process/run-until-signal';

// the platform's XML conventions (docs/platform-shapes.md): the writer the CLI's samples use
export { toPlatformXml } from './platform-xml/to-platform-xml';
export { pluralOf } from './platform-xml/plural-of';

// the outbound challenge of spec §6.1 (the CLI's `challenge` command)
export { checkChallenge } from './http/check-challenge';

// routing (docs/routing.md): the routes file, its validation, and the routing a worker starts
export { loadRoutesFile, parseRoutesFile } from './routes/load-routes-file';
export { RoutesFile, Route, RouteMatch, RouteDestination, RouteRetry } from './routes/routes-file';
export { StartupFileError } from './startup/startup-file-error';
export { startRouting } from './routes/start-routing';
export type { Routing, StartRoutingOptions } from './routes/start-routing';
export { routeQueueName } from './routes/route-queue-name';
export { matchesRoute } from './routes/match-route';
export { HttpDestinationOptions } from './routes/destinations/http';
export { AmqpDestinationOptions } from './routes/destinations/amqp';
export { NatsDestinationOptions } from './routes/destinations/nats';
export { RedisStreamDestinationOptions } from './routes/destinations/redis-stream';
export { FileDestinationOptions } from './routes/destinations/file';
export { PostgresDestinationOptions } from './routes/destinations/postgres';
export { MqttDestinationOptions } from './routes/destinations/mqtt';
export { DESTINATION_KINDS } from './routes/destinations';
export type { DestinationKind } from './routes/destinations';
