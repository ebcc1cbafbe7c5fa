/**
 * The job is on the primary but WAIT did not see it reach REDIS_ACK_REPLICAS replicas in time:
 * the delivery is answered 503 (any enqueue failure is), the sender retries, and the retry is a
 * duplicate of a job that is still queued — never a loss. With SPOOL_DIR the job is spooled too
 * and answered 200 `spooled` (src/events/spool/spool-on-failure.ts).
 */
export class ReplicasNotConfirmedError extends Error {
  constructor(
    readonly confirmed: number,
    readonly required: number,
    readonly timeoutMs: number,
  ) {
    super(`the job reached ${confirmed} of ${required} replicas within ${timeoutMs} ms`);
    this.name = 'ReplicasNotConfirmedError';
  }
}
