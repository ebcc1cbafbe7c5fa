import { z } from 'zod';
import { AmqpDestinationOptions } from './destinations/amqp';
import { FileDestinationOptions } from './destinations/file';
import { HttpDestinationOptions } from './destinations/http';
import { MqttDestinationOptions } from './destinations/mqtt';
import { NatsDestinationOptions } from './destinations/nats';
import { PostgresDestinationOptions } from './destinations/postgres';
import { RedisStreamDestinationOptions } from './destinations/redis-stream';
import { RouteWhere } from './match-where';
import { RouteSend } from './route-send';
import { RouteCircuit } from './route-circuit';
import { isPersonalPath } from './is-personal-path';
import { templatePathsOf } from './render-field-template';

/** Every destination kind and its options: adding a destination adds a line here (CONVENTIONS layout). */
const DESTINATIONS = {
  http: HttpDestinationOptions,
  amqp: AmqpDestinationOptions,
  nats: NatsDestinationOptions,
  redisStream: RedisStreamDestinationOptions,
  file: FileDestinationOptions,
  postgres: PostgresDestinationOptions,
  mqtt: MqttDestinationOptions,
} as const;
export const DESTINATION_KINDS = Object.keys(DESTINATIONS) as (keyof typeof DESTINATIONS)[];

const codes = z.array(z.string().min(1)).min(1, 'at least one value');

/** `match:` — every given condition must hold; `{}` (or no `match`) takes every event. */
export const RouteMatch = z.strictObject({
  /** Canonical actions; compared lower-cased, as the listener stores them. */
  action: codes.transform((values) => values.map((value) => value.toLowerCase())).optional(),
  /** `event.value`, e.g. LOAN_CREATED. */
  event: codes.optional(),
  /** `institution.value`, e.g. 01ABC_INST. */
  institution: codes.optional(),
  /** Conditions on any path of the canonical event (match-where.ts); every one must hold. */
  where: RouteWhere.optional(),
});
export type RouteMatch = z.infer<typeof RouteMatch>;

/**
 * `to:` — exactly one destination, read into `{ kind, options }` so the code switches on a kind.
 * Unknown keys are refused (a typo or a destination this version does not have).
 */
export const RouteDestination = z
  .strictObject({
    http: HttpDestinationOptions.optional(),
    amqp: AmqpDestinationOptions.optional(),
    nats: NatsDestinationOptions.optional(),
    redisStream: RedisStreamDestinationOptions.optional(),
    file: FileDestinationOptions.optional(),
    postgres: PostgresDestinationOptions.optional(),
    mqtt: MqttDestinationOptions.optional(),
  })
  .refine((to) => Object.values(to).filter((value) => value !== undefined).length === 1, {
    message: `exactly one destination (${DESTINATION_KINDS.join(', ')})`,
    // After an unknown key (reported as an unknown destination), this would only repeat it.
    when: (payload) => payload.issues.length === 0,
  })
  .transform((to) => {
    if (to.http) return { kind: 'http' as const, options: to.http };
    if (to.amqp) return { kind: 'amqp' as const, options: to.amqp };
    if (to.nats) return { kind: 'nats' as const, options: to.nats };
    if (to.redisStream) return { kind: 'redisStream' as const, options: to.redisStream };
    if (to.file) return { kind: 'file' as const, options: to.file };
    if (to.postgres) return { kind: 'postgres' as const, options: to.postgres };
    if (to.mqtt) return { kind: 'mqtt' as const, options: to.mqtt };
    // No known destination: the issue is already reported (unknown key, or not exactly one).
    return z.NEVER;
  });
export type RouteDestination = z.infer<typeof RouteDestination>;

/** `retry:` — attempts in all (the first included); exponential backoff from `backoffMs`, with jitter. */
export const RouteRetry = z.strictObject({
  attempts: z.number().int().min(1).max(100).default(10),
  backoffMs: z.number().int().min(1).default(5000),
});
export type RouteRetry = z.infer<typeof RouteRetry>;

export const Route = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9-]{1,64}$/, 'lower-case letters, digits and - only (at most 64)'),
    match: RouteMatch.default({}),
    /** What is sent of each event (route-send.ts); absent: the canonical event. */
    send: RouteSend.optional(),
    to: RouteDestination,
    retry: RouteRetry.default({ attempts: 10, backoffMs: 5000 }),
    /** Deliveries per second at most, across every worker process (BullMQ's queue rate limit). */
    ratePerSecond: z.number().positive().optional(),
    /** Deliveries in flight at once per worker process. */
    concurrency: z.number().int().min(1).max(1000).default(16),
    /** The route's circuit breaker (route-circuit.ts); `off` for routes that must never pause. */
    circuit: RouteCircuit,
  })
  .superRefine((route, context) => {
    if (route.send?.mask !== 'patron' || route.to.kind !== 'http') return;
    // A masked route must not put a personal value back in its URL or headers.
    const { url, headers = {} } = route.to.options;
    const templates: [readonly string[], string][] = [
      [['to', 'http', 'url'], url],
      ...Object.entries(headers).map(([name, value]): [readonly string[], string] => [
        ['to', 'http', 'headers', name],
        value,
      ]),
    ];
    for (const [path, template] of templates) {
      for (const field of templatePathsOf(template).filter(isPersonalPath)) {
        const message = `uses the personal field ${field} while send.mask is patron`;
        context.addIssue({ code: 'custom', path: [...path], message });
      }
    }
  });
export type Route = z.infer<typeof Route>;

/** The routes file (ROUTES_FILE): the public contract documented in docs/routing.md. */
export const RoutesFile = z
  .strictObject({ routes: z.array(Route) })
  .superRefine((file, context) => {
    const seen = new Set<string>();
    file.routes.forEach((route, index) => {
      if (seen.has(route.name)) {
        context.addIssue({
          code: 'custom',
          path: ['routes', index, 'name'],
          message: 'duplicate route name',
        });
      }
      seen.add(route.name);
    });
  });
export type RoutesFile = z.infer<typeof RoutesFile>;
