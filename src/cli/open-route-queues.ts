import type { RedisClient } from '../redis/redis-client';
import { Queue } from 'bullmq';
import { z } from 'zod';
import { EnvSchema, loadConfig, queueOnItsSlot, redisKeys, sentinelKeysTogether } from '../config';
import type { RedactSecrets } from '../routes/create-secret-redactor';
import { loadRoutesFile } from '../routes/load-routes-file';
import { routeQueueName } from '../routes/route-queue-name';
import type { Route } from '../routes/routes-file';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { openCliRedis } from './open-cli-redis';

/** The routes commands read the routes file and the Redis of the route queues; ROUTES_FILE is required. */
export const CliRoutesConfig = EnvSchema.pick({ ...redisKeys, QUEUE_NAME: true })
  .extend({ ROUTES_FILE: z.string().min(1) })
  .superRefine(sentinelKeysTogether)
  .overwrite(queueOnItsSlot);
export type CliRoutesConfig = z.infer<typeof CliRoutesConfig>;

/**
 * The routes of ROUTES_FILE (validated as the worker does: `${VAR}` from this environment), and
 * what masks the values substituted into them in anything a command prints.
 */
export function cliRoutes(env: CliIo['env']): {
  config: CliRoutesConfig;
  routes: readonly Route[];
  redactSecrets: RedactSecrets;
} {
  const config = loadConfig(CliRoutesConfig, env);
  const { routes, redactSecrets } = loadRoutesFile(config.ROUTES_FILE, env);
  return { config, routes, redactSecrets };
}

/** One route by name, or a usage error listing the names there are. */
export function routeNamed(
  routes: readonly Route[],
  name: string | undefined,
  command: string,
): Route {
  const route = routes.find((candidate) => candidate.name === name);
  if (route === undefined) {
    throw new CliUsageError(
      `${command}: no route ${name ?? '(none given)'} in ROUTES_FILE (routes: ${routes.map((r) => r.name).join(', ') || 'none'})`,
      'not_found',
    );
  }
  return route;
}

export interface CliRouteQueues {
  readonly routes: readonly Route[];
  /** Masks the routes file's substituted values (loadRoutesFile) in what a command prints. */
  readonly redactSecrets: RedactSecrets;
  /** Route name → its queue. */
  readonly queues: ReadonlyMap<string, Queue>;
  /** The queues' connection, for state kept beside them (a route's circuit). */
  readonly connection: RedisClient;
  /** QUEUE_NAME: the deployment the queues (and the history's outbox) belong to. */
  readonly queueName: string;
  close(): Promise<void>;
}

/** The route queues for one command, on the bounded connection of open-cli-redis.ts. */
export async function openRouteQueues(env: CliIo['env']): Promise<CliRouteQueues> {
  const { config, routes, redactSecrets } = cliRoutes(env);
  const redis = await openCliRedis(env);
  const queues = new Map(
    routes.map((route) => {
      const queue = new Queue(routeQueueName(config.QUEUE_NAME, route.name), {
        connection: redis.connection,
      });
      queue.on('error', () => undefined);
      return [route.name, queue] as const;
    }),
  );
  return {
    routes,
    redactSecrets,
    queues,
    connection: redis.connection,
    queueName: config.QUEUE_NAME,
    close: async () => {
      for (const queue of queues.values()) await queue.close();
      await redis.close();
    },
  };
}
