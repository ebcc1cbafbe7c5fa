import { randomUUID } from 'node:crypto';
import type { Request } from 'express';

/** The sender's `X-Request-Id` when it is a plain token, else a new one: every answer names one. */
export function requestIdOf(req: Request): string {
  const given = req.get('x-request-id');
  return given !== undefined && /^[A-Za-z0-9._-]{1,128}$/.test(given) ? given : randomUUID();
}
