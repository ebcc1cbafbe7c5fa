import { Queue } from 'bullmq';
import type { RedisClient } from '../../redis/redis-client';
import { institutionQueueName } from '../../institutions/institution-queue-name';
import { routeQueueName } from '../../routes/route-queue-name';
import type { Route } from '../../routes/routes-file';

export interface EventQueue {
  /** undefined: the single institution (no INSTITUTIONS_FILE). */
  readonly institution: string | undefined;
  readonly queue: Queue;
}

export interface ConsoleQueues {
  readonly connection: RedisClient;
  /** QUEUE_NAME: the base of every queue's name, and of the routes workers run (routes-run-registry.ts). */
  readonly queueName: string;
  readonly events: readonly EventQueue[];
  readonly routes: readonly { readonly route: Route; readonly queue: Queue }[];
  close(): Promise<void>;
}

/** The queues the listener and the worker name (bin/web.ts, start-worker.ts), on one connection. */
export function openConsoleQueues(options: {
  connection: RedisClient;
  queueName: string;
  institutions: readonly string[] | undefined;
  routes: readonly Route[];
}): ConsoleQueues {
  const open = (name: string): Queue => {
    const queue = new Queue(name, { connection: options.connection });
    queue.on('error', () => undefined);
    return queue;
  };
  const events: EventQueue[] =
    options.institutions === undefined
      ? [{ institution: undefined, queue: open(options.queueName) }]
      : options.institutions.map((code) => ({
          institution: code,
          queue: open(institutionQueueName(options.queueName, code)),
        }));
  const routes = options.routes.map((route) => ({
    route,
    queue: open(routeQueueName(options.queueName, route.name)),
  }));
  return {
    connection: options.connection,
    queueName: options.queueName,
    events,
    routes,
    close: async () => {
      await Promise.all([...events, ...routes].map(({ queue }) => queue.close()));
    },
  };
}
