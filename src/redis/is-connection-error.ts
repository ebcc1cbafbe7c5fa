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
 * Whether an error says Redis is away (BullMQ's own test, widened to the network's errnos): the
 * connection's watch (watch-redis.ts) says that once, so the workers' error events skip it.
 */
export function isConnectionError(error: Error): boolean {
  const { code } = error as Error & { code?: unknown };
  return (typeof code === 'string' && CONNECTION_CODES.has(code)) || !isNotConnectionError(error);
}
