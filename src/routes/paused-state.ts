import type { Queue } from 'bullmq';

/**
 * How long a read of a route's pause vouches for "running": an attempt may start only on a read
 * sent less than this long ago (set-route-paused.ts waits longer than this before it answers).
 */
export const PAUSE_CONFIRMED_FOR_MS = 1000;

/** Whether a route's queue is paused, as read in the background: the hot path makes no round trip. */
export interface PausedState {
  /**
   * Whether an attempt may start now: the latest read, sent under PAUSE_CONFIRMED_FOR_MS ago,
   * said the queue runs. `false` when paused, before the first answer, or when no read has
   * answered lately (Redis slow or away).
   */
  runningConfirmed(): boolean;
  /** Reads the pause now (one round trip) and answers whether an attempt may start. */
  confirm(): Promise<boolean>;
  /**
   * As runningConfirmed, but a "running" that is only old (the process busy, Redis slow) is read
   * again (one round trip, shared with the background read) instead of being taken for a pause. A
   * known pause costs no round trip.
   */
  runningNow(): Promise<boolean>;
  /** Stops reading. */
  stop(): void;
}

/**
 * The pause of a route queue (`routes pause`, the console, the API: from any process), read every
 * `everyMs` in the background (one command per route and period, whatever the traffic). A read
 * sent at time s answers for s: once a pause is in Redis, any read sent later says paused, so an
 * attempt that starts only on a read sent under PAUSE_CONFIRMED_FOR_MS ago cannot start later than
 * that after the pause — which is how long the pause command waits before it says "paused". A
 * pause or resume made through this very queue handle is seen at once (BullMQ's events).
 */
export function createPausedState(queue: Queue, everyMs: number): PausedState {
  let paused = true;
  /** When the read that said "running" was sent (performance.now()); -Infinity: none. */
  let confirmedAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<boolean> | undefined;
  /** Bumped by a local pause or resume: a read begun before it answers an older state. */
  let changes = 0;
  const read = (): Promise<boolean> => {
    if (reading !== undefined) return reading;
    const before = changes;
    const sentAt = performance.now();
    reading = queue
      .isPaused()
      .then(
        (now) => {
          if (changes !== before) return runningConfirmed();
          paused = now;
          if (!now) confirmedAt = sentAt;
          return !now;
        },
        // Redis away: no new confirmation; the next read tries again.
        () => false,
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const runningConfirmed = (): boolean =>
    !paused && performance.now() - confirmedAt < PAUSE_CONFIRMED_FOR_MS;
  queue.on('paused', () => {
    changes += 1;
    paused = true;
  });
  queue.on('resumed', () => {
    changes += 1;
    paused = false;
    confirmedAt = performance.now();
  });
  void read();
  const timer = setInterval(() => void read(), everyMs);
  timer.unref();
  return {
    runningConfirmed,
    confirm: async () => runningConfirmed() || (await read()),
    runningNow: async () => runningConfirmed() || (!paused && (await read())),
    stop: () => clearInterval(timer),
  };
}
