import express from 'express';
import type { Express, Router } from 'express';
import type { Logger } from '../logger';
import type { EnqueueEvent } from '../events/enqueue-event';
import { createWebhookRoutes } from './webhook-routes';
import { createHealthRoutes } from './health-routes';
import { createErrorHandler } from './error-handler';
import { createSignatureVerifier } from './webhook-signature';
import type { DeliveryObserver } from './delivery-observer';
import { HttpError } from './http-error';
import { sendError } from './send-error';

export interface CreateAppOptions {
  config: {
    WEBHOOK_PATH: string;
    WEBHOOK_SECRET: string;
    WEBHOOK_SECRET_PREVIOUS?: string | undefined;
    BODY_LIMIT: string;
  };
  logger: Logger;
  enqueue: EnqueueEvent;
  checkReady: () => Promise<void>;
  enqueueTimeoutMs?: number;
  observer?: DeliveryObserver;
  /** More routers (metrics, admin dashboard), mounted before the 404. */
  extraRoutes?: Router[];
}

/** The listener's Express app. It never listens itself: src/bin/web.ts does. */
export function createApp(options: CreateAppOptions): Express {
  const { config, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // The webhook routes come first: they take every request that matters to the platform.
  app.use(
    createWebhookRoutes({
      path: config.WEBHOOK_PATH,
      bodyLimit: config.BODY_LIMIT,
      verifySignature: createSignatureVerifier(
        [config.WEBHOOK_SECRET, config.WEBHOOK_SECRET_PREVIOUS].filter(
          (secret): secret is string => secret !== undefined,
        ),
      ),
      enqueue: options.enqueue,
      logger,
      ...(options.enqueueTimeoutMs === undefined
        ? {}
        : { enqueueTimeoutMs: options.enqueueTimeoutMs }),
      ...(options.observer === undefined ? {} : { observer: options.observer }),
    }),
  );
  app.use(createHealthRoutes({ checkReady: options.checkReady }));
  for (const router of options.extraRoutes ?? []) app.use(router);
  app.use((req, res) => {
    sendError(res, new HttpError(404, 'not_found', `no route for ${req.method} ${req.path}`));
  });
  app.use(createErrorHandler(logger));
  return app;
}
