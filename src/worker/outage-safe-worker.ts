import { Worker } from 'bullmq';
import { withTimeout } from '../with-timeout';
import { BlockingWaitStuckError } from './blocking-wait-stuck-error';
import type { Job, Span } from 'bullmq';

/** BullMQ's code for a finishing command refused because the job's lock is missing. */
const LOCK_MISSING = -2;
/** BullMQ's token that finishes a job without its lock (its scripts skip the lock check). */
const WITHOUT_LOCK = '0';

/**
 * A BullMQ Worker that records a job it finished even when Redis lost the job's lock meanwhile.
 *
 * Redis expires keys by the wall clock, so a Redis away longer than the lock (30 s) comes back
 * without it, and the completion this process sent while it was away is refused ("Missing lock").
 * BullMQ then leaves the job in `active`, and its stalled check runs the job again: an event
 * delivered a second time to every route it had reached (test/integration/worker/redis-outage-mid-job.test.ts).
 * The work is done here, so the completion is recorded without the lock, as BullMQ's own scripts
 * allow; they still move the job only if it is active, so a job that the stalled check has given
 * back to the queue meanwhile is left to the run it gets there (at least once, as before).
 */
export class OutageSafeWorker<DataType, ResultType, NameType extends string> extends Worker<
  DataType,
  ResultType,
  NameType
> {
  constructor(...args: ConstructorParameters<typeof Worker<DataType, ResultType, NameType>>) {
    super(...args);
    const connection = args[2]?.connection as { status?: unknown } | undefined;
    // Redis answers while the connection the worker was given is ready (one, or a cluster).
    boundBlockingWaits(
      this,
      () => connection?.status === undefined || connection.status === 'ready',
    );
  }

  protected override async handleCompleted(
    result: ResultType,
    job: Job<DataType, ResultType, NameType>,
    token: string,
    fetchNextCallback?: () => boolean,
    span?: Span,
  ): Promise<Job<DataType, ResultType, NameType>> {
    try {
      return await super.handleCompleted(result, job, token, fetchNextCallback, span);
    } catch (error) {
      if ((error as { code?: unknown }).code !== LOCK_MISSING) throw error;
      // Not fetching the next job here: that would lock it with this token too.
      await job.moveToCompleted(result, WITHOUT_LOCK, false);
      this.emit('completed', job, result, 'active');
      // No next job (what the base method gives when it fetched none): the main loop fetches one.
      return this.nextJobFromJobData(undefined, undefined, token);
    }
  }
}

/** BullMQ's error for a lock it could not renew (lock-manager.js), sent with lockRenewalFailed. */
export function isLockRenewalError(error: Error): boolean {
  return error.message.startsWith('could not renew lock for job ');
}

/** How much longer than its own bound (its block timeout and BullMQ's 1 s watchdog) a wait may take. */
const WAIT_GRACE_MS = 5000;
/** While a wait is stuck: how often the worker asks for a job on its other connection. */
const POLL_WHILE_STUCK_MS = 1000;

/** BullMQ's private wait for the next job (worker.js), and the bound it blocks for. */
interface BlockingWaits {
  waitForJob(blockUntil: number): Promise<number>;
  getBlockTimeout(blockUntil: number): number;
}

/** How long Redis must have answered, the wait still stuck, before the worker says so. */
const SAY_STUCK_AFTER_READY_MS = 10_000;

/**
 * BullMQ waits for a job on a blocking connection (BZPOPMIN, at most 10 s), then asks for it on
 * the other one. On a Redis Cluster that connection can stay stuck after a primary is lost: the
 * wait never returns (in BullMQ 6.7, resetting the connection waits for it to become ready, and
 * it never does), so the worker takes no job again while jobs wait — seen after `kill -9` of a
 * primary under load: a route's jobs held for minutes (test/integration/redis-cluster/
 * cluster-failover.test.ts). Here a wait that outlives its own bound by WAIT_GRACE_MS is let go:
 * the worker then asks for jobs every POLL_WHILE_STUCK_MS, without blocking, until the stuck
 * wait returns. While Redis is away a wait is stuck as a matter of course (the outage is said
 * once, src/redis/watch-redis.ts); one still stuck SAY_STUCK_AFTER_READY_MS after the worker's
 * connection answers again is said once, as an `error` event (the worker's error line).
 */
function boundBlockingWaits(
  worker: { readonly name: string; emit(event: 'error', error: Error): boolean },
  redisAnswers: () => boolean,
): void {
  const waits = worker as unknown as BlockingWaits;
  const wait = waits.waitForJob.bind(worker);
  let stuck: { readySince?: number; said?: true } | undefined;
  const sayIfStillStuck = (boundMs: number): void => {
    if (stuck === undefined || stuck.said === true) return;
    if (!redisAnswers()) {
      delete stuck.readySince;
      return;
    }
    stuck.readySince ??= Date.now();
    if (Date.now() - stuck.readySince < SAY_STUCK_AFTER_READY_MS) return;
    stuck.said = true;
    worker.emit('error', new BlockingWaitStuckError(worker.name, boundMs, POLL_WHILE_STUCK_MS));
  };
  waits.waitForJob = async (blockUntil) => {
    const boundMs = Math.max(0, waits.getBlockTimeout(blockUntil)) * 1000 + 1000 + WAIT_GRACE_MS;
    if (stuck !== undefined) {
      await sleep(POLL_WHILE_STUCK_MS);
      sayIfStillStuck(boundMs);
      return 0;
    }
    const waiting = wait(blockUntil);
    try {
      return await withTimeout(waiting, boundMs, () => new WaitOutlivedItsBound());
    } catch (error) {
      if (!(error instanceof WaitOutlivedItsBound)) throw error;
    }
    const episode = {};
    stuck = episode;
    const over = (): void => {
      if (stuck === episode) stuck = undefined;
    };
    waiting.then(over, over);
    return 0;
  };
}

/** The wait for a job took longer than its bound (it goes on; the worker stops waiting for it). */
class WaitOutlivedItsBound extends Error {}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
