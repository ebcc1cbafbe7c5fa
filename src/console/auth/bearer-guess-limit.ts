import type { Request, RequestHandler } from 'express';
import type { WrongTokenLimit } from '../../http/wrong-token-limit';
import type { ConsoleAuth } from './console-auth';

export interface BearerGuessLimitOptions {
  readonly auth: ConsoleAuth;
  /** The console's one limit of wrong tokens (create-console-app.ts), shared with the sign-in form. */
  readonly limit: WrongTokenLimit;
}

/** The client a count is kept for: req.ip, which the trusted proxies' X-Forwarded-For sets. */
export function clientOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}

/**
 * Guesses of a Bearer token count as wrong sign-ins do, per client (CONSOLE_TRUSTED_PROXIES says
 * who that is behind a proxy) and overall; a right token never counts (a script's calls, however
 * many at once, never add up). wrong-token-limit.ts: when a client is refused, and why a right
 * token from another client never is.
 */
export function bearerGuessLimit(options: BearerGuessLimitOptions): RequestHandler {
  return options.limit.guard({
    tokenOf: (req) => options.auth.bearerOf(req),
    isRight: (token) => options.auth.principalOfToken(token) !== undefined,
    clientOf,
    refuse: (res, why) => {
      res.status(429).json({
        error: 'too_many_attempts',
        message:
          why === 'client'
            ? 'too many wrong tokens from this address: wait a minute'
            : 'too many wrong tokens overall: wait a minute',
      });
    },
  });
}
