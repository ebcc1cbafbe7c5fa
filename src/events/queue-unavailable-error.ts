import { CLUSTER_AWAY } from '../redis/is-connection-error';

/**
 * The queue did not answer: Redis unreachable, a connection lost mid-command, a command or the
 * enqueue timed out, or Redis refusing writes for now (OOM under noeviction, LOADING, BUSY,
 * READONLY), or a cluster whose node for the queue's slot is away or being replaced. Only this
 * outcome is worth the sender's retry (the listener answers it 503
 * `queue_unavailable`, src/http/webhook-routes.ts).
 */
export class QueueUnavailableError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'QueueUnavailableError';
  }
}

/** Node and ioredis errors of a connection that is away or broke; they carry no reply from Redis. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);
const CONNECTION_MESSAGES =
  /^(Connection is closed|Stream isn't writeable|Command timed out|Reached the max retries per request)/;
/** Replies in which Redis says "not now" rather than "never". */
const TRANSIENT_REPLIES = /^(OOM|LOADING|BUSY|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

/** True when `error` means the queue does not answer (as opposed to a defect or a refusal). */
export function isQueueUnavailable(error: unknown): boolean {
  if (error instanceof QueueUnavailableError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, name } = error as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  if (typeof message !== 'string') return false;
  return (
    CONNECTION_MESSAGES.test(message) ||
    TRANSIENT_REPLIES.test(message) ||
    CLUSTER_AWAY.test(message)
  );
}
