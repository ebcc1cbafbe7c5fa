import { derivedQueueName } from '../redis/hash-tag';

/**
 * The BullMQ queue of one route: `<QUEUE_NAME>-route-<name>`. Route names are `[a-z0-9-]+` and
 * queue names `[A-Za-z0-9_-]+`, so the result is a valid BullMQ name and two routes never share one.
 * On a Redis Cluster, `{<QUEUE_NAME>-route-<name>}`: a slot of its own (src/redis/hash-tag.ts).
 */
export function routeQueueName(mainQueueName: string, routeName: string): string {
  return derivedQueueName(mainQueueName, `-route-${routeName}`);
}
