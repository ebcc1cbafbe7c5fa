import type { RedisClient } from './redis-client';
import type { Logger } from '../logger';
import { REDIS_RETRY_MAX_MS } from './open-redis';
import type { RedisConnectionConfig } from './open-redis';
import { redisWhere } from './redis-target';
import { errField } from '../err-field';

/**
 * Says plainly when Redis is away, once: one warning naming the key and the retry cadence, then
 * quiet retries (ioredis reconnects by itself), then one line when it is connected again. Also
 * the connection's error listener, so ioredis never prints an unhandled error event.
 */
export function watchRedis(
  connection: RedisClient,
  redis: string | RedisConnectionConfig,
  logger: Logger,
): void {
  const { target, key } = redisWhere(redis);
  let away = false;
  connection.on('error', (error: Error) => {
    if (away) return;
    away = true;
    const reason = reasonOf(error);
    const retryEverySeconds = REDIS_RETRY_MAX_MS / 1000;
    // One message whatever the address or the cause (a dashboard counts it): both are fields.
    logger.warn(
      { key, target, reason, err: errField(error), retryEverySeconds },
      'cannot reach Redis: retrying',
    );
  });
  connection.on('ready', () => {
    if (!away) return;
    away = false;
    logger.info({ key, target }, 'redis connected');
  });
}

/** The error's message, or its errno: a refused dual-stack connect is an AggregateError with none. */
function reasonOf(error: Error): string {
  const { code } = error as Error & { code?: unknown };
  if (error.message !== '') return error.message;
  return typeof code === 'string' ? code : error.name;
}
