import { startDeliveries } from '../../redis-ha/support/send-deliveries';
import type { DeliveryRecord } from '../../redis-ha/support/send-deliveries';
import type { MixedKinds } from './mixed-kinds';
import type { OutagePipeline } from './outage-pipeline';
import { watchSpoolDepth } from './spool-depth-watch';

export interface OutageTimings {
  readonly perSecond: number;
  /** Sending before Redis is stopped. */
  readonly beforeMs: number;
  /** Redis stopped. */
  readonly outageMs: number;
  /** Sending after Redis is back. */
  readonly afterMs: number;
  /** The longest wait for the spool to empty (the assertion on the figure is the test's). */
  readonly giveUpMs: number;
}

export interface OutageRun {
  /** Every delivery with its answer (0: no answer). */
  readonly records: DeliveryRecord[];
  /** When Redis answered again. */
  readonly returnedAt: number;
  /** From Redis's return to the first reading of an empty spool. */
  readonly drainMs: number;
  /** The deepest the spool was seen. */
  readonly spooledPeak: number;
  /** Each process's log lines while Redis was stopped. */
  readonly logsDuring: { web: Record<string, unknown>[]; worker: Record<string, unknown>[] };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Signed deliveries of mixed kinds for the whole run, Redis stopped for `outageMs` in the middle. */
export async function sendThroughOutage(
  pipeline: OutagePipeline,
  kinds: MixedKinds,
  timings: OutageTimings,
): Promise<OutageRun> {
  const { web, worker, redis, port } = pipeline;
  const spool = watchSpoolDepth(port);
  const run = startDeliveries({
    port,
    secret: pipeline.secret,
    perSecond: timings.perSecond,
    idPrefix: '31',
    bodyOf: kinds.bodyOf,
  });
  await sleep(timings.beforeMs);
  const logsAtStop = { web: web.lines().length, worker: worker.lines().length };
  await redis.stop();
  await sleep(timings.outageMs);
  const logsDuring = {
    web: web.lines().slice(logsAtStop.web),
    worker: worker.lines().slice(logsAtStop.worker),
  };
  await redis.start();
  const returnedAt = Date.now();
  const drained = spool.emptySince(returnedAt, timings.giveUpMs);
  // Handled at once; awaited below, so that a late drain fails on its figure.
  drained.catch(() => undefined);
  await sleep(timings.afterMs);
  const records = await run.stop();
  try {
    return { records, returnedAt, drainMs: await drained, spooledPeak: spool.peak(), logsDuring };
  } finally {
    spool.stop();
  }
}
