import { Queue } from 'bullmq';
import type { Telemetry } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';

export interface EventQueue {
  queue: Queue;
  connection: RedisClient;
  /** Resolves when Redis answers PING; rejects at once while it is unreachable. */
  ping: () => Promise<void>;
  /** Closes the queue handle; the connection stays with whoever opened it. */
  close: () => Promise<void>;
}

/**
 * The producer side of the event queue over a connection opened by the caller (the listener's:
 * openProducerConnection, which fails fast while Redis is away).
 */
export function createEventQueue({
  connection,
  queueName,
  telemetry,
}: {
  connection: RedisClient;
  queueName: string;
  /** BullMQ's telemetry (src/tracing/): each job carries its request's trace; none when off. */
  telemetry?: Telemetry | undefined;
}): EventQueue {
  const queue = new Queue(queueName, {
    connection,
    ...(telemetry === undefined ? {} : { telemetry }),
  });
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
    close: () => queue.close(),
  };
}
