import type { Request, RequestHandler } from 'express';
import { HttpError } from '../http/http-error';
import { sendError } from '../http/send-error';
import { createTokenMatcher } from '../http/token-matcher';
import { createWrongTokenLimit } from '../http/wrong-token-limit';

export interface MetricsTokenGuardOptions {
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`; unset, it is open. */
  readonly token: string | undefined;
  /**
   * Refused scrapes a client address may make per minute; past it every scrape of that address
   * is answered 429 until the minute is over, so the token cannot be guessed online.
   */
  readonly failuresPerMinute?: number;
  /** Refused scrapes of all addresses per minute before their answers wait (100 unless told). */
  readonly overallFailuresPerMinute?: number;
  /** The window of both counts (a minute unless told; tests shorten it). */
  readonly windowMs?: number;
}

/**
 * What stands before `GET /metrics` in both processes (the listener's route, the worker's own
 * port): nothing when no token is set; else the limits of wrong tokens (wrong-token-limit.ts: per
 * address, and overall without refusing a right token) and a constant-time check of the bearer
 * token, 401 when it fails.
 */
export function metricsTokenGuard({
  token,
  failuresPerMinute = 10,
  overallFailuresPerMinute = 100,
  windowMs,
}: MetricsTokenGuardOptions): RequestHandler[] {
  if (token === undefined || token === '') return [];
  const matches = createTokenMatcher(token);
  const limiter = createWrongTokenLimit({
    perClient: failuresPerMinute,
    overall: overallFailuresPerMinute,
    ...(windowMs === undefined ? {} : { windowMs }),
  }).guard({
    // Every scrape is a try: one without a token counts as a wrong one.
    tokenOf: (req) => bearerOf(req) ?? '',
    isRight: (given) => matches(given),
    // The socket's address: neither process trusts X-Forwarded-For, and the listener's proxy
    // block does not pass /metrics on (deploy/proxy/nginx.conf).
    clientOf: (req) => req.socket.remoteAddress ?? '',
    refuse: (res, why) => {
      const message =
        why === 'client'
          ? 'too many refused scrapes: wait a minute'
          : 'too many refused scrapes overall: wait a minute';
      sendError(res, new HttpError(429, 'too_many_attempts', message));
    },
  });
  const check: RequestHandler = (req, res, next) => {
    if (matches(bearerOf(req))) {
      next();
      return;
    }
    res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
    sendError(res, new HttpError(401, 'unauthorized', 'a valid metrics token is required'));
  };
  return [limiter, check];
}

function bearerOf(req: Request): string | undefined {
  const [scheme, value] = (req.get('authorization') ?? '').trim().split(/\s+/, 2);
  return /^bearer$/i.test(scheme ?? '') ? value : undefined;
}
