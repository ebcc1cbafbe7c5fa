/**
 * A worker's blocking wait for jobs did not return within its bound: the worker takes jobs by
 * asking every `pollMs` instead, until the wait returns (outage-safe-worker.ts).
 */
export class BlockingWaitStuckError extends Error {
  readonly code = 'blocking_wait_stuck';

  constructor(
    readonly queue: string,
    readonly boundMs: number,
    readonly pollMs: number,
  ) {
    super(
      `the wait for jobs of queue ${queue} did not return within ${String(boundMs)} ms: taking its jobs by asking every ${String(pollMs)} ms until it does`,
    );
    this.name = 'BlockingWaitStuckError';
  }
}
