import express from 'express';
import type { Router } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Logger } from '../../logger';
import type { ConsoleAuth } from '../auth/console-auth';
import { SESSION_COOKIE } from '../auth/console-auth';
import { consoleError } from '../data/console-error';
import { page } from './layout';
import { signInPage } from './queue-pages';

export interface SignInOptions {
  readonly auth: ConsoleAuth;
  readonly logger: Logger;
  /** Sign-in attempts per address per minute. */
  readonly attemptsPerMinute: number;
}

/**
 * /sign-in (a form field `token`) sets the session cookie — HttpOnly, SameSite=Strict, expiring —
 * and /sign-out ends it. The token is never logged nor put in a URL; attempts are rate-limited
 * per address so a token cannot be guessed online.
 */
export function signInRoutes(options: SignInOptions): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '4kb' });
  const limiter = rateLimit({
    windowMs: 60_000,
    limit: options.attemptsPerMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: (_req, res) => {
      res
        .status(429)
        .type('html')
        .send(page('Sign in', signInPage({ error: 'Too many attempts: wait a minute.' })).value);
    },
  });
  router.get('/sign-in', (_req, res) => {
    res.type('html').send(page('Sign in', signInPage({})).value);
  });
  router.post('/sign-in', limiter, form, (req, res) => {
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    const signed = typeof token === 'string' ? options.auth.signIn(token) : undefined;
    if (signed === undefined) {
      options.logger.warn({ ip: req.ip }, 'console sign-in refused');
      res
        .status(401)
        .type('html')
        .send(page('Sign in', signInPage({ error: 'That token is not valid.' })).value);
      return;
    }
    options.logger.info(
      { actor: signed.principal.name, role: signed.principal.role },
      'console sign-in',
    );
    res.cookie(SESSION_COOKIE, signed.cookie, {
      httpOnly: true,
      // Secure behind TLS: https here, or X-Forwarded-Proto from the trusted proxy.
      secure: req.secure,
      sameSite: 'strict',
      maxAge: signed.maxAgeMs,
      path: '/',
    });
    res.redirect(303, '/');
  });
  router.post('/sign-out', form, (req, res) => {
    if (!options.auth.csrfHolds(req, (req.body as Record<string, unknown> | undefined)?._csrf)) {
      throw consoleError.csrf();
    }
    options.auth.signOut(req);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.redirect(303, '/sign-in');
  });
  return router;
}
