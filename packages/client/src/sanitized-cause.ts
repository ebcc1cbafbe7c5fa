import { NOT_SENT_CODES } from './retry-policy';
import { redactText } from './redact-url';

/** An error safe to attach as `cause`: message, code and stack scrubbed of the key and URL query. */
export class SanitizedError extends Error {
  readonly code: string | undefined;
  constructor(name: string, message: string, code: string | undefined, stack: string | undefined) {
    super(message);
    this.name = name;
    this.code = code;
    if (stack !== undefined) this.stack = stack;
  }
}

export function sanitizedCause(error: unknown, secrets: readonly string[]): SanitizedError {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  const message = redactText(parts.filter((part) => part !== '').join(': '), secrets);
  const name = error instanceof Error ? error.name : 'Error';
  const stack =
    error instanceof Error && error.stack ? redactText(error.stack, secrets) : undefined;
  return new SanitizedError(name, message, errorCodes(error)[0], stack);
}

/** True when every error in the chain says the connection never opened (nothing was written). */
export function notSent(error: unknown): boolean {
  const codes = errorCodes(error);
  return codes.length > 0 && codes.every((code) => NOT_SENT_CODES.has(code));
}

/**
 * The `code`s of the innermost errors: a wrapped error (`{ cause }`) is looked into, and a
 * dual-stack connect fails as an `AggregateError` of one error per address.
 */
function errorCodes(error: unknown, depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 5) return [];
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.flatMap((inner: unknown) => {
      const codes = errorCodes(inner, depth + 1);
      return codes.length > 0 ? codes : ['UNKNOWN'];
    });
  }
  const cause: unknown = 'cause' in error ? error.cause : undefined;
  if (cause !== undefined) {
    const inner = errorCodes(cause, depth + 1);
    if (inner.length > 0) return inner;
  }
  const code: unknown = 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? [code] : [];
}
