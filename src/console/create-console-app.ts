import { readFileSync } from 'node:fs';
import express from 'express';
import type { Express } from 'express';
import helmet from 'helmet';
import { createHealthRoutes } from '../http/health-routes';
import type { HealthRoutesOptions } from '../http/health-routes';
import type { Logger } from '../logger';
import type { ConsoleActions } from './data/console-actions';
import type { ConsoleAuth } from './auth/console-auth';
import type { ConsoleHistory } from './data/console-history';
import { apiOperations } from './api/api-operations';
import { apiRouter } from './api/api-router';
import { createWrongTokenLimit } from '../http/wrong-token-limit';
import { bearerGuessLimit } from './auth/bearer-guess-limit';
import { CONSOLE_CSS } from './pages/console-css';
import { pageErrorHandler, pagesRouter } from './pages/pages-router';
import type { OverviewSources } from './data/read-overview';
import { signInRoutes } from './pages/sign-in-routes';

/** htmx, the partial-update library of the replay progress page, read once from its package. */
const HTMX = readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8');

export interface ConsoleAppOptions {
  readonly logger: Logger;
  readonly auth: ConsoleAuth;
  readonly actions: ConsoleActions;
  readonly overview: OverviewSources;
  /** The event history; undefined: live state only (the pages say so, its calls answer 503). */
  readonly history?: ConsoleHistory | undefined;
  /**
   * CONSOLE_TRUSTED_PROXIES: their X-Forwarded-For and -Proto are believed (the client the guess
   * limits count for, the Secure cookie); the client is the rightmost address not among them.
   */
  readonly trustedProxies: readonly string[];
  /** Wrong tokens (sign-in and Bearer together) per client per minute (10 unless told). */
  readonly signInPerMinute?: number;
  /** Wrong tokens of all clients per minute before wrong answers wait (100 unless told). */
  readonly wrongTokensPerMinute?: number;
  /** The window of both counts (a minute unless told; tests shorten it). */
  readonly guessWindowMs?: number;
  /** `/readyz`: resolves when the console's Redis answers (health-routes.ts, as the listener's). */
  readonly checkReady: () => Promise<void>;
  /** On a Redis Cluster, its nodes for /readyz (health-routes.ts). */
  readonly clusterNodes?: HealthRoutesOptions['clusterNodes'];
}

/**
 * The console's Express app (it never listens itself: console-process.ts and bin/console.ts do).
 * Every page and API answer carries helmet's headers with a CSP that allows no inline script
 * and no script from elsewhere.
 */
export function createConsoleApp(options: ConsoleAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustedProxies.length === 0 ? false : [...options.trustedProxies]);
  // Before any sign-in: a container's or load balancer's health check carries no token.
  app.use(
    createHealthRoutes(
      options.clusterNodes === undefined
        ? { checkReady: options.checkReady }
        : { checkReady: options.checkReady, clusterNodes: options.clusterNodes },
    ),
  );
  app.use(securityHeaders());
  app.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.get('/console.css', (_req, res) => {
    res.type('css').send(CONSOLE_CSS);
  });
  app.get('/htmx.min.js', (_req, res) => {
    res.type('js').send(HTMX);
  });
  const deps = { ...options };
  const limit = createWrongTokenLimit({
    perClient: options.signInPerMinute ?? 10,
    overall: options.wrongTokensPerMinute ?? 100,
    ...(options.guessWindowMs === undefined ? {} : { windowMs: options.guessWindowMs }),
  });
  app.use(bearerGuessLimit({ auth: options.auth, limit }));
  app.use(
    '/api/v1',
    apiRouter({
      operations: apiOperations(deps),
      auth: options.auth,
      logger: options.logger,
      redisReady: () => options.overview.queues.connection.status === 'ready',
    }),
  );
  app.use(
    signInRoutes({
      auth: options.auth,
      logger: options.logger,
      limit,
    }),
  );
  app.use(pagesRouter(deps));
  app.use(pageErrorHandler(options.logger));
  return app;
}

/** helmet's headers, with a CSP that allows no inline script and no script from elsewhere. */
function securityHeaders(): ReturnType<typeof helmet> {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        // Only files of this origin (htmx on the replay progress page), never inline script.
        scriptSrc: ["'self'"],
        connectSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
  });
}
