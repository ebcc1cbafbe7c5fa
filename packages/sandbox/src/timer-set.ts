/**
 * The sandbox's pending timers (job progress, webhook retries), so `close()` and `reset()` can
 * cancel every one and a test never leaves a handle open.
 */
export interface TimerSet {
  after(ms: number, run: () => void): void;
  clearAll(): void;
  readonly size: () => number;
}

export function createTimerSet(): TimerSet {
  const pending = new Set<NodeJS.Timeout>();
  return {
    after(ms, run) {
      const handle = setTimeout(
        () => {
          pending.delete(handle);
          run();
        },
        Math.max(0, ms),
      );
      pending.add(handle);
    },
    clearAll() {
      for (const handle of pending) clearTimeout(handle);
      pending.clear();
    },
    size: () => pending.size,
  };
}
