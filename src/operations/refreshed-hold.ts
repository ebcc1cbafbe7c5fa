/**
 * A hold in Redis (a route's recovery lock, a run's slot) kept while its run lasts: `refresh`
 * every `everyMs` pushes its expiry on, so a crashed process's hold soon expires; `release`
 * gives it up once and stops the refreshing. Neither fails the run: a hold that cannot be
 * refreshed or released expires on its own.
 */
export function refreshedHold(
  refresh: () => Promise<unknown>,
  release: () => Promise<unknown>,
  everyMs: number,
): { release(): Promise<void> } {
  const timer = setInterval(() => {
    refresh().catch(() => undefined);
  }, everyMs);
  timer.unref();
  return {
    release: async () => {
      clearInterval(timer);
      await release().catch(() => undefined);
    },
  };
}
