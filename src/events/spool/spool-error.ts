/** Why the spool could not take a delivery: the answer's code (503, the sender retries later). */
export type SpoolErrorCode = 'spool_full' | 'spool_unwritable';

/**
 * The queue did not answer and the spool could not keep the delivery either: answered 503 with
 * this code and message, so the sender retries and the operator reads why.
 */
export class SpoolError extends Error {
  readonly status = 503;
  constructor(
    readonly code: SpoolErrorCode,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'SpoolError';
  }
}
