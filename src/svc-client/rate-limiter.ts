/** Waits for a number of milliseconds; rejects with the signal's reason when it aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
}

export interface RateLimiter {
  /** Resolves when a call may start; the start is counted at that moment. Rejects on abort. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Callers waiting for their turn. */
  pending(): number;
}

export interface RateLimiterOptions {
  /** At most this many starts in any rolling window. */
  limit: number;
  windowMs?: number;
  clock?: Clock;
  sleep?: Sleep;
}

export const monotonicClock: Clock = { now: () => performance.now() };

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
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * A sliding-window log: a call may start when fewer than `limit` calls started in the last
 * `windowMs`. Unlike a fixed window it never lets 2×limit through across a boundary, and unlike a
 * token bucket it needs no refill arithmetic. Waiters are served strictly in arrival order; an
 * aborted waiter leaves the queue without consuming a slot. No dependency: the log holds at most
 * `limit` timestamps.
 */
export function createRateLimiter({
  limit,
  windowMs = 1000,
  clock = monotonicClock,
  sleep = realSleep,
}: RateLimiterOptions): RateLimiter {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be an integer ≥ 1');
  const starts: number[] = [];
  const queue: Waiter[] = [];
  let pumping = false;

  /** Milliseconds until a slot frees, 0 when one is free now. */
  function waitFor(now: number): number {
    while (starts.length > 0 && (starts[0] ?? 0) <= now - windowMs) starts.shift();
    if (starts.length < limit) return 0;
    return (starts[0] ?? now) + windowMs - now;
  }

  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0) {
        const delay = waitFor(clock.now());
        if (delay > 0) {
          await sleep(delay);
          continue;
        }
        const waiter = queue.shift();
        if (!waiter) break;
        starts.push(clock.now());
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.resolve();
      }
    } finally {
      pumping = false;
    }
  }

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
        if (signal) {
          waiter.onAbort = () => {
            const index = queue.indexOf(waiter);
            if (index >= 0) queue.splice(index, 1);
            reject(signal.reason);
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        queue.push(waiter);
        void pump();
      });
    },
    pending: () => queue.length,
  };
}
