import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

export interface EventQueue {
  queue: Queue;
  connection: Redis;
  /** Resolves when Redis answers PING; rejects at once while it is unreachable. */
  ping: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * The producer side of the event queue, as BullMQ's production guide asks: no offline queue, so a
 * command fails at once while Redis is away (→ 503 to the sender) instead of waiting for it; and a
 * command timeout, so a Redis that stops answering mid-connection fails fast too.
 *
 * Auto-pipelining sends the commands of deliveries that arrive together (one event-loop turn) in
 * one write: under load this cuts the CPU that each delivery costs Redis and the listener (see
 * `npm run bench`) and changes nothing for a lone delivery. Each command keeps its own answer
 * and its own timeout.
 */
export function createEventQueue({
  redisUrl,
  queueName,
  commandTimeoutMs = 1000,
}: {
  redisUrl: string;
  queueName: string;
  commandTimeoutMs?: number;
}): EventQueue {
  let closing = false;
  const connection = new Redis(redisUrl, {
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy: (attempt) => (closing ? null : Math.min(attempt * 200, 2000)),
  });
  // Connection errors surface as 503s and in /readyz; ioredis would otherwise print them unhandled.
  connection.on('error', () => undefined);
  const queue = new Queue(queueName, { connection });
  queue.on('error', () => undefined);
  return {
    queue,
    connection,
    ping: async () => {
      // Right after start-up the connection may still be opening: wait for it (the caller bounds
      // the wait) rather than report "not ready" for a Redis that is about to answer.
      await queue.waitUntilReady();
      await connection.ping();
    },
    close: async () => {
      closing = true;
      await queue.close();
      if (connection.status === 'ready') await connection.quit();
      // A connection that already ended must not be told again: ioredis would arm a new timer.
      else if (connection.status !== 'end') connection.disconnect();
    },
  };
}
