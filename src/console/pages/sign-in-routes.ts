import express from 'express';
import type { Request, Response, Router } from 'express';
import type { WrongTokenLimit } from '../../http/wrong-token-limit';
import type { Logger } from '../../logger';
import { clientOf } from '../auth/bearer-guess-limit';
import type { ConsoleAuth } from '../auth/console-auth';
import { SESSION_COOKIE } from '../auth/console-auth';
import { consoleError } from '../data/console-error';
import { page } from './layout';
import { signInPage } from './queue-pages';

export interface SignInOptions {
  readonly auth: ConsoleAuth;
  readonly logger: Logger;
  /** The console's one limit of wrong tokens (create-console-app.ts), shared with Bearer tokens. */
  readonly limit: WrongTokenLimit;
}

/**
 * /sign-in (a form field `token`) sets the session cookie — HttpOnly, SameSite=Strict, expiring —
 * and /sign-out ends it. The token is never logged nor put in a URL; wrong tokens are limited per
 * client and overall (wrong-token-limit.ts) so a token cannot be guessed online.
 */
export function signInRoutes(options: SignInOptions): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '4kb' });
  const limiter = options.limit.guard({
    // A post without a token field counts as a wrong one.
    tokenOf: (req) => tokenOf(req) ?? '',
    isRight: (token) => options.auth.principalOfToken(token) !== undefined,
    clientOf,
    refuse: (res) => {
      res
        .status(429)
        .type('html')
        .send(page('Sign in', signInPage({ error: 'Too many attempts: wait a minute.' })).value);
    },
  });
  router.get('/sign-in', (_req, res) => {
    res.type('html').send(page('Sign in', signInPage({})).value);
  });
  router.post('/sign-in', form, limiter, (req, res) => signIn(options, req, res));
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

function tokenOf(req: Request): string | undefined {
  const token = (req.body as Record<string, unknown> | undefined)?.token;
  return typeof token === 'string' ? token : undefined;
}

/** Signs in with the form's token: a session cookie and a redirect, or the page with what went wrong. */
function signIn(options: SignInOptions, req: Request, res: Response): void {
  const token = tokenOf(req);
  const signed = token === undefined ? undefined : options.auth.signIn(token);
  if (signed?.outcome !== 'signed-in') {
    const full = signed?.outcome === 'sessions-full';
    options.logger.warn(
      full ? { ip: req.ip, reason: 'sessions_full' } : { ip: req.ip },
      'console sign-in refused',
    );
    const error = full ? 'No session is free: try again later.' : 'That token is not valid.';
    res
      .status(full ? 503 : 401)
      .type('html')
      .send(page('Sign in', signInPage({ error })).value);
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
}
