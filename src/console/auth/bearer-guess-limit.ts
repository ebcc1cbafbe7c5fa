import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { ConsoleAuth } from './console-auth';

export interface BearerGuessLimitOptions {
  readonly auth: ConsoleAuth;
  /** Wrong Bearer tokens per address per minute (as many as sign-in attempts). */
  readonly attemptsPerMinute: number;
}

const WINDOW_MS = 60_000;

/**
 * Guesses of a Bearer token are limited as sign-in attempts are: per address and minute, a wrong
 * token counts, a right one does not (a script's calls, however many at once, never add up).
 * Once an address is at the limit, its requests answer 429 with Retry-After before any token is
 * checked, so a guess made then cannot tell right from wrong.
 */
export function bearerGuessLimit(options: BearerGuessLimitOptions): RequestHandler {
  const keyOf = (req: Request): string => ipKeyGenerator(req.ip ?? '');
  const limiter = rateLimit({
    windowMs: WINDOW_MS,
    limit: options.attemptsPerMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: keyOf,
    skip: async (req) => {
      if (options.auth.bearerOf(req) === undefined) return true;
      const seen = await limiter.getKey(keyOf(req));
      if (seen !== undefined && seen.totalHits >= options.attemptsPerMinute) return false;
      return options.auth.principalOf(req) !== undefined;
    },
    handler: (_req, res) => {
      res.status(429).json({
        error: 'too_many_attempts',
        message: 'too many wrong tokens from this address: wait a minute',
      });
    },
  });
  return limiter;
}
