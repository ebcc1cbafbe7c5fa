/** Thrown by a sandbox route; the error middleware turns it into the platform's error body. */
export class SandboxError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'SandboxError';
    this.status = status;
    this.code = code;
  }
}

/** 400 with one of the spec's numeric codes (§7 rule 1). */
export function badRequest(code: string, message: string): SandboxError {
  return new SandboxError(400, code, message);
}

/**
 * 404 for a path variable that names nothing where the operation's row has no code for it (spec
 * §7 rule 7 leaves the status of an unknown path open; an unknown id makes the path name nothing).
 */
export function notFound(message: string): SandboxError {
  return new SandboxError(404, 'NOT_FOUND', message);
}
