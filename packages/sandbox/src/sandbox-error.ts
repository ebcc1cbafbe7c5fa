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
