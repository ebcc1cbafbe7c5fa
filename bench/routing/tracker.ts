/** What one phase of the routing bench saw: when each event was posted, and when it reached both. */
export interface Tracker {
  /** Event id → when its POST was sent. */
  readonly posted: Map<string, number>;
  /** Posted → seen on both destinations, ms, in arrival order. */
  readonly latencies: number[];
  readonly counts: { amqp: number; file: number };
  arrived(id: string, where: 'amqp' | 'file'): void;
  /** Resolves true once `events` were seen on both, false after `timeoutMs`. */
  all(timeoutMs: number): Promise<boolean>;
}

export function createTracker(events: number): Tracker {
  const posted = new Map<string, number>();
  const seen = new Map<string, { amqp?: number; file?: number }>();
  const latencies: number[] = [];
  const counts = { amqp: 0, file: 0 };
  let done: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => {
    done = resolve;
  });
  return {
    posted,
    latencies,
    counts,
    arrived: (id, where) => {
      const entry = seen.get(id) ?? {};
      if (entry[where] !== undefined) return;
      entry[where] = performance.now();
      counts[where] += 1;
      seen.set(id, entry);
      const sent = posted.get(id);
      if (entry.amqp !== undefined && entry.file !== undefined && sent !== undefined) {
        latencies.push(Math.max(entry.amqp, entry.file) - sent);
        if (latencies.length === events) done();
      }
    },
    all: (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        allDone.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
    },
  };
}

/** The q-quantile of `values` (nearest rank), NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
