import { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client';
import { createEventEnqueuer } from '../events/enqueue-event';
import type { EnqueueEvent } from '../events/enqueue-event';
import { enqueueForInstitution } from '../events/enqueue-for-institution';
import { institutionQueueName } from '../institutions/institution-queue-name';

/** Where `rejected replay` queues one kept delivery, or why it cannot (the entry stays kept). */
export type ReplayTarget = { enqueue: EnqueueEvent } | { refused: string };

export interface ReplayTargets {
  /** The target of an entry kept on this institution's path (undefined: the single path). */
  targetOf: (institution: string | undefined) => ReplayTarget;
  /** Closes the institutions' queues opened here (not the event queue given). */
  close: () => Promise<void>;
}

export interface ReplayTargetsOptions {
  /** The event queue of a single institution (QUEUE_NAME). */
  queue: Queue;
  /** For the institutions' queues, opened when an entry needs one. */
  connection: RedisClient;
  /** The member codes of INSTITUTIONS_FILE; undefined without the file. */
  institutions: readonly string[] | undefined;
  dedupWindowHours: number;
  attempts: number;
}

/**
 * The listener's queues, as src/processes/listener-process.ts builds them: without
 * INSTITUTIONS_FILE the one event queue; with it, each member's own queue behind the same
 * institution rule as its path (enqueue-for-institution.ts: a body naming another member stays
 * refused, one without an institution takes the path's). An entry that cannot be placed is refused,
 * never guessed: the base queue has no worker in a consortium, and another member's queue would use
 * its key.
 */
export function createReplayTargets(options: ReplayTargetsOptions): ReplayTargets {
  const { connection, institutions, dedupWindowHours, attempts } = options;
  const enqueueOn = (queue: Queue): EnqueueEvent =>
    createEventEnqueuer({ queue, dedupWindowHours, attempts });
  const opened = new Map<string, { queue: Queue; enqueue: EnqueueEvent }>();
  const single = enqueueOn(options.queue);
  const memberEnqueue = (code: string): EnqueueEvent => {
    const known = opened.get(code);
    if (known !== undefined) return known.enqueue;
    const queue = new Queue(institutionQueueName(options.queue.name, code), { connection });
    queue.on('error', () => undefined);
    const enqueue = enqueueForInstitution(code, enqueueOn(queue));
    opened.set(code, { queue, enqueue });
    return enqueue;
  };
  return {
    targetOf: (institution) => {
      if (institutions === undefined) {
        return institution === undefined
          ? { enqueue: single }
          : { refused: `kept on institution ${institution}'s path: set INSTITUTIONS_FILE` };
      }
      if (institution === undefined) {
        return { refused: 'kept without an institution (before INSTITUTIONS_FILE): no queue' };
      }
      if (!institutions.includes(institution)) {
        return { refused: `institution ${institution} is not in INSTITUTIONS_FILE` };
      }
      return { enqueue: memberEnqueue(institution) };
    },
    close: async () => {
      await Promise.all([...opened.values()].map(({ queue }) => queue.close()));
    },
  };
}
