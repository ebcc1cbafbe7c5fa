import { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * The worker's Redis connection, as BullMQ's production guide asks of workers:
 * `maxRetriesPerRequest: null`, so a Redis that goes away is waited for instead of failing the
 * blocking commands. ioredis reconnects by itself; each error is said once as a warning instead of
 * an unhandled 'error' event. Opened by the composition root (bin/worker.ts), closed there.
 */
export function openWorkerConnection(redisUrl: string, logger: Logger): Redis {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (error: Error) => {
    logger.warn({ err: error.message }, 'redis connection error');
  });
  return connection;
}
