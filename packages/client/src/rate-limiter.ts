/** Waits for a number of milliseconds; rejects with the signal's reason when it aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
}

/**
 * Ends the hold of one slot: called once the attempt's answer (or its failure, or its abort) has
 * arrived. The slot becomes free `windowMs` later. A second call does nothing.
 */
export type Release = () => void;

export interface RateLimiter {
  /**
   * Resolves to the slot's `release` when a call may start; the slot is held from that moment
   * until `windowMs` after `release()`. Rejects on abort (no slot is taken then).
   */
  acquire(signal?: AbortSignal): Promise<Release>;
  /** Callers waiting for their turn. */
  pending(): number;
}

export interface RateLimiterOptions {
  /** At most this many slots held at once: at most this many calls arrive in any window. */
  limit: number;
  windowMs?: number;
  clock?: Clock;
  sleep?: Sleep;
}

const monotonicClock: Clock = { now: () => performance.now() };

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

interface Waiter {
  resolve: (release: Release) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * Bounds the calls that *arrive* at the service in any window of `windowMs`, which is what the
 * platform counts (spec §8 governance; the sandbox's governance.ts counts arrivals per second).
 * Counting starts instead lets network delay bunch calls started in two windows into one.
 *
 * A call holds a slot from its start until `windowMs` after its answer (or failure, or abort)
 * arrives, and at most `limit` slots are held at any instant. Why that bounds arrivals: a call
 * that arrives at the server within some window [t, t + windowMs) started before t + windowMs and
 * ended at or after t (its answer cannot come before its request arrived), so its slot is held at
 * the instant just before t + windowMs. At most `limit` slots are held at that instant, so at
 * most `limit` calls arrive in that window. The one gap: an attempt the client gives up on
 * (timeout, abort) while its request is still travelling ends before it arrives; the timeout is
 * far longer than any transit, so in practice the request has arrived or never will.
 *
 * Each attempt (a retry too) acquires its own slot. Waiters are served strictly in arrival order;
 * an aborted waiter leaves the queue without taking a slot. No dependency: the state is a count of
 * calls in flight and the free-again times of at most `limit` released slots.
 */
export function createRateLimiter({
  limit,
  windowMs = 1000,
  clock = monotonicClock,
  sleep = realSleep,
}: RateLimiterOptions): RateLimiter {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be an integer ≥ 1');
  let inFlight = 0;
  /** When each released slot is free again; ascending, since releases come in time order. */
  const freeAgain: number[] = [];
  const queue: Waiter[] = [];
  let pumping = false;

  function releaseOf(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight -= 1;
      freeAgain.push(clock.now() + windowMs);
      void pump();
    };
  }

  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0) {
        const delay = waitFor(freeAgain, inFlight, limit, clock.now());
        // Every slot is in flight: the next release starts the pump again.
        if (delay === undefined) break;
        if (delay > 0) {
          await sleep(delay);
          continue;
        }
        const waiter = queue.shift();
        if (!waiter) break;
        inFlight += 1;
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.resolve(releaseOf());
      }
    } finally {
      pumping = false;
    }
  }

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<Release>((resolve, reject) => {
        queue.push(waiterOf(queue, { resolve, reject, signal }));
        void pump();
      });
    },
    pending: () => queue.length,
  };
}

/**
 * Milliseconds until a slot frees: 0 when one is free now, undefined when every slot is held by
 * a call in flight (only a release can free one then). Drops the release times that have passed.
 */
function waitFor(
  freeAgain: number[],
  inFlight: number,
  limit: number,
  now: number,
): number | undefined {
  while (freeAgain.length > 0 && (freeAgain[0] ?? 0) <= now) freeAgain.shift();
  if (inFlight + freeAgain.length < limit) return 0;
  const next = freeAgain[0];
  return next === undefined ? undefined : next - now;
}

/** A waiter that leaves `queue` without a slot when its signal aborts. */
function waiterOf(queue: Waiter[], waiting: Omit<Waiter, 'onAbort'>): Waiter {
  const waiter: Waiter = { ...waiting, onAbort: undefined };
  const { signal } = waiting;
  if (signal) {
    waiter.onAbort = () => {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
      waiting.reject(signal.reason);
    };
    signal.addEventListener('abort', waiter.onAbort, { once: true });
  }
  return waiter;
}
