import type { Request } from 'express';
import type { ConsoleAuth } from '../auth/console-auth';
import type { Principal } from '../auth/principal';
import { consoleError } from '../data/console-error';

/**
 * Who sent a form: signed in (401 otherwise) and holding the page's CSRF token (403 otherwise)
 * unless a Bearer token signed it (auth.needsCsrf).
 */
export function formPrincipal(auth: ConsoleAuth, req: Request): Principal {
  const principal = auth.principalOf(req);
  if (principal === undefined) throw consoleError.unsigned();
  const body = req.body as Record<string, unknown> | undefined;
  if (auth.needsCsrf(principal) && !auth.csrfHolds(req, body?._csrf)) throw consoleError.csrf();
  return principal;
}
