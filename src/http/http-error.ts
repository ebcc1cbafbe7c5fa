/** An answer the listener gives on purpose: status plus a message that names what was wrong. */
export class HttpError extends Error {
  readonly status: number;
  /** Short machine name of the outcome, logged and returned as `error`. */
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
  }
}
