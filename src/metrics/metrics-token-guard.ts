import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { HttpError } from '../http/http-error';
import { sendError } from '../http/send-error';
import { createTokenMatcher } from '../http/token-matcher';

export interface MetricsTokenGuardOptions {
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`; unset, it is open. */
  readonly token: string | undefined;
  /**
   * Refused scrapes a client address may make per minute; past it every scrape of that address
   * is answered 429 until the minute is over, so the token cannot be guessed online.
   */
  readonly failuresPerMinute?: number;
}

/**
 * What stands before `GET /metrics` in both processes (the listener's route, the worker's own
 * port): nothing when no token is set; else a limit on refused attempts per address (as the
 * console's sign-in has) and a constant-time check of the bearer token, 401 when it fails.
 */
export function metricsTokenGuard({
  token,
  failuresPerMinute = 10,
}: MetricsTokenGuardOptions): RequestHandler[] {
  if (token === undefined || token === '') return [];
  const matches = createTokenMatcher(token);
  const limiter = rateLimit({
    windowMs: 60_000,
    limit: failuresPerMinute,
    // Only refusals count: a scraper with the right token is never slowed down.
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // The address is the socket's (neither process trusts X-Forwarded-For): behind a proxy the
    // limit is the proxy's, and the library's warning about the header is no news.
    validate: { xForwardedForHeader: false },
    handler: (_req, res) => {
      sendError(
        res,
        new HttpError(429, 'too_many_attempts', 'too many refused scrapes: wait a minute'),
      );
    },
  });
  const check: RequestHandler = (req, res, next) => {
    const [scheme, value] = (req.get('authorization') ?? '').trim().split(/\s+/, 2);
    if (/^bearer$/i.test(scheme ?? '') && matches(value)) {
      next();
      return;
    }
    res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
    sendError(res, new HttpError(401, 'unauthorized', 'a valid metrics token is required'));
  };
  return [limiter, check];
}
