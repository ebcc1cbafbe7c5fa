/**
 * Key placement on a Redis Cluster (docs/deployment.md#a-redis-cluster). A key's slot is the hash
 * of its first `{…}` part when it has one, so every key that holds `{name}` lands on one slot:
 * BullMQ's keys of a queue named `{name}` (`bull:{name}:wait`, …) and ours built from the queue's
 * name (`{name}:history`, `{name}:job-end-seen:…`). On a cluster each queue's name is tagged, and a
 * name made from another one (a route's queue, an institution's) is tagged as a whole, so the
 * queues spread over the primaries while each keeps its own keys together. On one Redis (or
 * Sentinel) no name is tagged: the keys stay as they are.
 */

const TAGGED = /^\{([^{}]+)\}$/;

/** `name` as a whole hash tag: `{name}`; a name already tagged is left as it is. */
export function hashTagged(name: string): string {
  return TAGGED.test(name) ? name : `{${name}}`;
}

/**
 * The name of a queue made from `base` and `suffix`: `base-suffix` on one Redis; on a cluster,
 * where `base` is `{base}`, `{base-suffix}`, a slot of its own.
 */
export function derivedQueueName(base: string, suffix: string): string {
  const inner = TAGGED.exec(base)?.[1];
  return inner === undefined ? `${base}${suffix}` : `{${inner}${suffix}}`;
}
