import type { Queue } from 'bullmq';

/** Whether a route's queue is paused, as last read: a read on the hot path would cost a round trip. */
export interface PausedState {
  /** The last state read; `true` until the first read answered. */
  paused(): boolean;
  /** Stops reading. */
  stop(): void;
}

/**
 * The pause of a route queue (`routes pause`, from any process), read every `everyMs` in the
 * background (one command per route and period, whatever the traffic), so a pause holds inline
 * attempts within about that long. A pause made through this very queue handle is seen at once
 * (BullMQ's `paused` / `resumed` events).
 */
export function createPausedState(queue: Queue, everyMs: number): PausedState {
  let paused = true;
  let reading = false;
  /** Bumped by a local pause or resume: a read begun before it answers an older state. */
  let changes = 0;
  const read = (): void => {
    if (reading) return;
    reading = true;
    const before = changes;
    queue
      .isPaused()
      .then(
        (now) => {
          if (changes !== before) return;
          paused = now;
        },
        // Redis away: the last state stands, and the next call tries again.
        () => undefined,
      )
      .finally(() => {
        reading = false;
      });
  };
  queue.on('paused', () => {
    changes += 1;
    paused = true;
  });
  queue.on('resumed', () => {
    changes += 1;
    paused = false;
  });
  read();
  const timer = setInterval(read, everyMs);
  timer.unref();
  return {
    paused: () => paused,
    stop: () => clearInterval(timer),
  };
}
