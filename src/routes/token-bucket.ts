/** A route's rate in this process: deliveries taken at `ratePerSecond` at most. */
export interface TokenBucket {
  /** Takes a token if one is there now and nobody waits for one; never waits. */
  tryTake(): boolean;
  /** Waits for a token; waiters are served in order, before any `tryTake`. */
  take(): Promise<void>;
}

/**
 * A token bucket holding one token at most, refilled at `ratePerSecond`: no two deliveries closer
 * than 1/rate s, so no window of any length sees more than its share plus one. The route worker
 * `take`s (its queue waits); the first attempt inline only `tryTake`s, so a route's backlog goes
 * first and inline attempts add nothing over the rate.
 */
export function createTokenBucket(ratePerSecond: number): TokenBucket {
  const intervalMs = 1000 / ratePerSecond;
  /** When the next token is there (ms, performance.now()). */
  let next = 0;
  let waiters = 0;
  const claim = (): number => {
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + intervalMs;
    return at - now;
  };
  return {
    tryTake: () => {
      if (waiters > 0 || performance.now() < next) return false;
      claim();
      return true;
    },
    take: async () => {
      const wait = claim();
      if (wait <= 0) return;
      waiters += 1;
      try {
        await new Promise((resolve) => setTimeout(resolve, wait));
      } finally {
        waiters -= 1;
      }
    },
  };
}
