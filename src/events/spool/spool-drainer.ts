import type { Logger } from '../../logger';
import { isQueueUnavailable } from '../queue-unavailable-error';
import { ReplicasNotConfirmedError } from '../replicas-not-confirmed-error';
import type { DeliverSpooled, Spool } from './create-spool';
import { errField } from '../../err-field';

export interface SpoolDrainer {
  /** Something was spooled: make sure a drain is coming (one at a time, every `retryMs` at most). */
  wake: () => void;
  /** Drains now (or joins the drain under way); resolves when it ends, whatever happened. */
  drainNow: () => Promise<void>;
  /** No more tries, after the one under way and one last drain if anything is left. */
  close: () => Promise<void>;
}

export interface SpoolDrainerOptions {
  spool: Spool;
  deliver: DeliverSpooled;
  /** Resolves when the queue answers (a bounded PING); a drain waits for it, never for a hang. */
  ready: () => Promise<void>;
  beforeRemove?: () => Promise<void>;
  logger: Logger;
  /** While the spool is not empty, a drain is tried this often. */
  retryMs?: number;
}

/**
 * Moves spooled entries into the queue as soon as Redis answers: tried once `wake` is called and
 * then every `retryMs` while anything is left. One drain at a time, so the entries go in the order
 * they arrived.
 */
export function createSpoolDrainer(options: SpoolDrainerOptions): SpoolDrainer {
  const { spool, logger, retryMs = 500 } = options;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let failing = false;

  const run = async (): Promise<void> => {
    try {
      await options.ready();
      const delivered = await spool.drain(options.deliver, options.beforeRemove);
      if (delivered > 0 || failing) {
        logger.info({ delivered, left: spool.stats().depth }, 'spool drained into the queue');
      }
      failing = false;
    } catch (error) {
      // One line when the queue goes away, not one per try.
      if (!failing) logDrainFailure(logger, error, spool.stats().depth);
      failing = true;
    }
  };
  const schedule = (): void => {
    if (closed || timer !== undefined || running !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void drainNow();
    }, retryMs);
  };
  const drainNow = (): Promise<void> => {
    running ??= run().finally(() => {
      running = undefined;
      if (!spool.isEmpty()) schedule();
    });
    return running;
  };
  return {
    wake: schedule,
    drainNow,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await running;
      if (spool.isEmpty()) return;
      // A last drain before the process goes (new deliveries have stopped): what is spooled
      // reaches the queue now if it answers, rather than wait on this disk for the next process
      // on the directory, which for a listener scaled away may be long.
      await drainNow();
      const left = spool.stats().depth;
      if (left > 0) logger.warn({ left }, 'spool left on disk: the next listener on it drains it');
    },
  };
}

/**
 * Why a drain stopped: a queue that does not answer, or replicas that do not confirm
 * (REDIS_ACK_REPLICAS), is waited out — the drain is tried again — and anything else is a defect.
 */
function logDrainFailure(logger: Logger, error: unknown, left: number): void {
  if (isQueueUnavailable(error)) {
    logger.warn({ err: errField(error), left }, 'spool drain waits: the queue does not answer');
  } else if (error instanceof ReplicasNotConfirmedError) {
    logger.warn({ err: errField(error), left }, 'spool drain waits: the replicas do not confirm');
  } else {
    logger.error({ err: errField(error), left }, 'spool drain failed');
  }
}
