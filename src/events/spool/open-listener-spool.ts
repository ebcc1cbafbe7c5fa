import type { RedisClient } from '../../redis/redis-client';
import { waitForReplicas } from '../../redis/wait-for-replicas';
import type { WebConfig } from '../../config';
import { createEventQueue } from '../create-event-queue';
import type { EventQueue } from '../create-event-queue';
import type { EnqueueEvent } from '../enqueue-event';
import { eventJobOf } from '../enqueue-event';
import { QueueUnavailableError } from '../queue-unavailable-error';
import { ReplicasNotConfirmedError } from '../replicas-not-confirmed-error';
import type { RejectedStore } from '../rejected-store';
import { openSpool } from './create-spool';
import type { Spool } from './create-spool';
import type { SpoolFileWrite } from './spool-writer';
import { createDeliverSpooled } from './deliver-spooled';
import { createSpoolDrainer } from './spool-drainer';
import type { SpoolDrainer } from './spool-drainer';
import { spoolOnFailure } from './spool-on-failure';
import { spoolRejected } from './spool-rejected';
import type { Logger } from '../../logger';
import { withTimeout } from '../../with-timeout';
import { enqueueBoundMs } from '../enqueue-bound-ms';

export interface ListenerSpool {
  spool: Spool;
  drainer: SpoolDrainer;
  /** An enqueue of `queue` that spools what the queue does not take in time. */
  enqueueOf: (enqueue: EnqueueEvent, queue: EventQueue) => EnqueueEvent;
  /** The rejected store, spooling what Redis does not take. */
  rejected: RejectedStore;
  /**
   * /readyz with a spool: ready while the spool can be written and has room, whether Redis
   * answers or not; once a write failed, not until a probe write succeeds again.
   */
  checkReady: () => Promise<void>;
  close: () => Promise<void>;
}

export interface ListenerSpoolOptions {
  config: WebConfig & { SPOOL_DIR: string };
  logger: Logger;
  connection: RedisClient;
  queues: readonly EventQueue[];
  rejected: RejectedStore;
  /** The spool's write to its files (spool-writer.ts); FileHandle.write unless given. */
  write?: SpoolFileWrite | undefined;
}

/**
 * The listener's spool (SPOOL_DIR): opened (and locked) at start-up, wrapped around each enqueue
 * and the rejected store, and drained into the queues by a drainer that checks Redis first.
 * Throws SpoolLockedError when another live process holds the directory.
 */
export function openListenerSpool(options: ListenerSpoolOptions): ListenerSpool {
  const { config, logger, connection, queues } = options;
  const spool = openSpool({
    dir: config.SPOOL_DIR,
    maxBytes: config.SPOOL_MAX_BYTES,
    logger,
    write: options.write,
  });
  const boundMs = enqueueBoundMs(config);
  const [first] = queues;
  if (first === undefined) throw new Error('no event queue');
  const queueOf = spooledQueues(connection, queues);
  const drainer = createSpoolDrainer({
    spool,
    logger,
    deliver: createDeliverSpooled({ queueOf: queueOf.get, rejected: options.rejected, logger }),
    ready: () =>
      withTimeout(first.ping(), boundMs, () => new QueueUnavailableError('ping did not answer')),
    beforeRemove: () => confirmReplicas(connection, config),
  });
  const jobOf = eventJobOf({
    dedupWindowHours: config.DEDUP_WINDOW_HOURS,
    attempts: config.JOB_ATTEMPTS,
  });
  return {
    spool,
    drainer,
    enqueueOf: (enqueue, queue) =>
      spoolOnFailure({
        enqueue,
        jobOf,
        queueName: queue.queue.name,
        spool,
        boundMs,
        connected: () => connection.status === 'ready',
        onSpooled: drainer.wake,
        logger,
      }),
    rejected: spoolRejected(options.rejected, spool, drainer.wake),
    checkReady: async () => {
      if (!spool.writable()) await spool.probe();
      if (!spool.hasRoom()) await first.ping();
    },
    close: async () => {
      await drainer.close();
      await spool.close();
      await queueOf.close();
    },
  };
}

/** The queue a spooled job names: the listener's own, or one opened for a name no longer served. */
function spooledQueues(connection: RedisClient, queues: readonly EventQueue[]) {
  const byName = new Map(queues.map((one) => [one.queue.name, one]));
  const opened: EventQueue[] = [];
  return {
    get: (name: string) => {
      let found = byName.get(name);
      if (found === undefined) {
        found = createEventQueue({ connection, queueName: name });
        byName.set(name, found);
        opened.push(found);
      }
      return found.queue;
    },
    close: async () => {
      await Promise.all(opened.map((one) => one.close()));
    },
  };
}

/**
 * With REDIS_ACK_REPLICAS, a spool file goes only once WAIT sees its jobs on the replicas (on a
 * cluster, WAIT on every primary: the file's jobs may be on any of them).
 */
async function confirmReplicas(connection: RedisClient, config: WebConfig): Promise<void> {
  const replicas = config.REDIS_ACK_REPLICAS;
  if (replicas === 0) return;
  const timeoutMs = config.REDIS_ACK_TIMEOUT_MS;
  const confirmed = await waitForReplicas(connection, replicas, timeoutMs);
  if (confirmed < replicas) throw new ReplicasNotConfirmedError(confirmed, replicas, timeoutMs);
}
