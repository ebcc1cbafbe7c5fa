import { derivedQueueName } from '../redis/hash-tag';

/**
 * The event queue of one institution: `<QUEUE_NAME>-inst-<code>`. One queue per member is what
 * lets a 429 or a spent budget pause that member's work alone (BullMQ's rate limit is per queue),
 * and keeps the members' event ids apart. Route queues are `<QUEUE_NAME>-route-<name>`: no clash.
 * On a Redis Cluster, `{<QUEUE_NAME>-inst-<code>}`: a slot of its own (src/redis/hash-tag.ts).
 */
export function institutionQueueName(mainQueueName: string, code: string): string {
  return derivedQueueName(mainQueueName, `-inst-${code}`);
}
