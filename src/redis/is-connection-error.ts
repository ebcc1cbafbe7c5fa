import { isNotConnectionError } from 'bullmq';

/** The errnos of a server that cannot be reached (or stopped answering) rather than refusing a command. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * ioredis' Cluster when the node that owns a slot is away or being replaced: its last try ended
 * on a closed connection, a MOVED to a node not yet up, or CLUSTERDOWN; or no node answers. And a
 * blocking command cut off because its primary turned replica (a failover, UNBLOCKED).
 */
export const CLUSTER_AWAY =
  /^(Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Cluster isn't ready|Cluster is disconnected|UNBLOCKED force unblock)/;

/**
 * Whether an error says Redis is away (BullMQ's own test, widened to the network's errnos and to
 * a cluster's node away): the connection's watch (watch-redis.ts) says that once, so the workers'
 * error events skip it.
 */
export function isConnectionError(error: Error): boolean {
  const { code } = error as Error & { code?: unknown };
  return (
    (typeof code === 'string' && CONNECTION_CODES.has(code)) ||
    !isNotConnectionError(error) ||
    CLUSTER_AWAY.test(error.message)
  );
}
