import type { HttpMethod } from './endpoint';

/**
 * Codes the client gives a failure that has no platform code: the call never got an answer, or the
 * answer was not what the table promised.
 */
export type ClientErrorCode =
  'NETWORK' | 'TIMEOUT' | 'ABORTED' | 'INVALID_RESPONSE' | 'DOWNLOAD_FAILED' | 'BODY_TOO_LARGE';

export interface SvcApiErrorFields {
  /** The platform's message, or the client's when there is none. Never holds the API key. */
  readonly message: string;
  /** HTTP status; undefined when no response arrived (network error, timeout, abort). */
  readonly status: number | undefined;
  /** The platform's `errorCode` (a numeric string such as `402216`), or a {@link ClientErrorCode}. */
  readonly code: string | undefined;
  /**
   * The table's documented meaning of `code` for this operation (spec §4), when listed; else the
   * general meaning spec §7 gives the code (402119, 40166410, 40166411, 60100), if it is one.
   */
  readonly meaning: string | undefined;
  /** What happened in words a user understands, where the client knows more than the code. */
  readonly explanation?: string | undefined;
  /** The message the platform sent, unchanged (also when `message` says more). */
  readonly platformMessage?: string | undefined;
  readonly trackingId?: string | undefined;
  readonly operation: string;
  readonly method: HttpMethod;
  readonly route: string;
  /** The URL with the `apikey` value replaced by `[redacted]`. */
  readonly url: string;
  /** Whether the same call can succeed later: network errors, timeouts, 5xx and 429. */
  readonly retryable: boolean;
  /** A delay the caller should wait before trying again, when one is known. */
  readonly retryAfterMs?: number | undefined;
  /** How many attempts the client made before giving up. */
  readonly attempts?: number | undefined;
  /** BODY_TOO_LARGE: the cap (bytes) the answer went past. */
  readonly limitBytes?: number | undefined;
  /** A sanitized copy of the underlying error (message and stack scrubbed of the key). */
  readonly cause?: Error | undefined;
}

/**
 * The one error of a failed call: machine fields for the worker to decide on
 * (retry, or give up), a redacted URL, and nothing that could carry the API key.
 */
export class SvcApiError extends Error {
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly meaning: string | undefined;
  readonly explanation: string | undefined;
  readonly platformMessage: string | undefined;
  readonly trackingId: string | undefined;
  readonly operation: string;
  readonly method: HttpMethod;
  readonly route: string;
  readonly url: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly attempts: number | undefined;
  readonly limitBytes: number | undefined;

  constructor(fields: SvcApiErrorFields) {
    super(fields.message, fields.cause ? { cause: fields.cause } : undefined);
    this.name = 'SvcApiError';
    this.status = fields.status;
    this.code = fields.code;
    this.meaning = fields.meaning;
    this.explanation = fields.explanation;
    this.platformMessage = fields.platformMessage;
    this.trackingId = fields.trackingId;
    this.operation = fields.operation;
    this.method = fields.method;
    this.route = fields.route;
    this.url = fields.url;
    this.retryable = fields.retryable;
    this.retryAfterMs = fields.retryAfterMs;
    this.attempts = fields.attempts;
    this.limitBytes = fields.limitBytes;
  }

  /** A copy with other fields (the attempt count, a job-submit explanation). */
  with(fields: Partial<SvcApiErrorFields>): SvcApiError {
    return new SvcApiError({ ...this.fields(), ...fields });
  }

  /** `JSON.stringify(error)` gives the machine fields and the message, nothing else. */
  toJSON(): Record<string, unknown> {
    const { cause, ...rest } = this.fields();
    return { name: this.name, ...rest, ...(cause ? { cause: cause.message } : {}) };
  }

  private fields(): SvcApiErrorFields {
    return {
      message: this.message,
      status: this.status,
      code: this.code,
      meaning: this.meaning,
      explanation: this.explanation,
      platformMessage: this.platformMessage,
      trackingId: this.trackingId,
      operation: this.operation,
      method: this.method,
      route: this.route,
      url: this.url,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
      attempts: this.attempts,
      limitBytes: this.limitBytes,
      cause: this.cause instanceof Error ? this.cause : undefined,
    };
  }
}
