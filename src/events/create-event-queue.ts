import { Queue } from 'bullmq';
import type { Telemetry } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';

export interface EventQueue {
  queue: Queue;
  connection: RedisClient;
  /**
   * Resolves when Redis answers PING (on a cluster: the primary of the queue's slot answers);
   * rejects at once while it is unreachable.
   */
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
      // On a cluster, a command on the queue's own key: it goes to the primary that owns the
      // queue's slot, the node the adds need (a PING goes to any node).
      if (connection.isCluster) await connection.exists(queue.toKey('meta'));
      else await connection.ping();
    },
    close: () => queue.close(),
  };
}
