/** The attempts and failures a window holds. */
export interface WindowCounts {
  readonly attempts: number;
  readonly failures: number;
}

export interface FailureWindow {
  /** One attempt's outcome, counted now. */
  record(failed: boolean): void;
  /** What the last `windowMs` hold (to within one bucket's width). */
  counts(): WindowCounts;
  /** Forget everything (the circuit opened or closed: a new sample starts). */
  clear(): void;
}

export interface FailureWindowOptions {
  readonly windowMs: number;
  /** How many buckets the window is cut into: the oldest drops out whole. */
  readonly buckets?: number;
  readonly now?: () => number;
}

/**
 * Outcomes of the last `windowMs` in one process's memory, in time buckets: a ring of counters
 * whose slot is the bucket's number modulo the ring's length, a slot reused for a later bucket
 * starting again from zero. Counting costs no Redis command, so a successful delivery stays as
 * cheap as without a failure-rate rule; each process judges its own sample.
 */
export function createFailureWindow(options: FailureWindowOptions): FailureWindow {
  const size = options.buckets ?? 10;
  const width = Math.max(1, Math.ceil(options.windowMs / size));
  const now = options.now ?? Date.now;
  const ring = Array.from({ length: size }, () => ({ bucket: -1, attempts: 0, failures: 0 }));
  return {
    record: (failed) => {
      const bucket = Math.floor(now() / width);
      const slot = ring[bucket % size];
      if (slot === undefined) return;
      if (slot.bucket !== bucket) Object.assign(slot, { bucket, attempts: 0, failures: 0 });
      slot.attempts += 1;
      if (failed) slot.failures += 1;
    },
    counts: () => {
      const oldest = Math.floor(now() / width) - size + 1;
      let attempts = 0;
      let failures = 0;
      for (const slot of ring) {
        if (slot.bucket < oldest) continue;
        attempts += slot.attempts;
        failures += slot.failures;
      }
      return { attempts, failures };
    },
    clear: () => {
      for (const slot of ring) Object.assign(slot, { bucket: -1, attempts: 0, failures: 0 });
    },
  };
}
