import type { WebConfig } from '../config';

/**
 * How long the listener waits for one enqueue, and for one command on its Redis connection: 1 s,
 * and with REDIS_ACK_REPLICAS REDIS_ACK_TIMEOUT_MS more for WAIT (still under the 5 s the sender
 * waits).
 */
export function enqueueBoundMs(
  config: Pick<WebConfig, 'REDIS_ACK_REPLICAS' | 'REDIS_ACK_TIMEOUT_MS'>,
): number {
  return 1000 + (config.REDIS_ACK_REPLICAS > 0 ? config.REDIS_ACK_TIMEOUT_MS : 0);
}
