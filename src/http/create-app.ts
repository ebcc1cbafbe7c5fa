import express from 'express';
import type { Express, Router } from 'express';
import type { Logger } from '../logger';
import type { EnqueueEvent } from '../events/enqueue-event';
import type { RejectedStore } from '../events/rejected-store';
import { createWebhookRoutes } from './webhook-routes';
import { createHealthRoutes } from './health-routes';
import { createErrorHandler } from './error-handler';
import { createSignatureVerifier } from './webhook-signature';
import type { DeliveryObserver } from './delivery-observer';
import { HttpError } from './http-error';
import { sendError } from './send-error';
import { createDeliveryPipeline } from './delivery-pipeline';
import { parseByteSize } from './parse-byte-size';

export interface CreateAppOptions {
  config: {
    WEBHOOK_PATH: string;
    WEBHOOK_SECRET: string;
    WEBHOOK_SECRET_PREVIOUS?: string | undefined;
    BODY_LIMIT: string;
  };
  logger: Logger;
  enqueue: EnqueueEvent;
  /** Where signed deliveries that cannot become an event are kept (createRejectedStore). */
  rejected: RejectedStore;
  checkReady: () => Promise<void>;
  enqueueTimeoutMs?: number;
  observer?: DeliveryObserver;
  /** More routers (metrics, admin dashboard), mounted before the 404. */
  extraRoutes?: Router[];
}

/**
 * The listener's Express app. It never listens itself: src/bin/web.ts does, and applies
 * configureServer for the timeouts and the connection cap. Throws on a secret under 16 characters.
 */
export function createApp(options: CreateAppOptions): Express {
  const { config, logger } = options;
  const bodyLimit = parseByteSize(config.BODY_LIMIT);
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // The webhook routes come first: they take every request that matters to the platform.
  app.use(
    createWebhookRoutes({
      path: config.WEBHOOK_PATH,
      // A compressed body is never larger on the wire than BODY_LIMIT either.
      bodyLimits: { wireBytes: bodyLimit, decodedBytes: bodyLimit },
      verifySignature: createSignatureVerifier({
        current: config.WEBHOOK_SECRET,
        previous: config.WEBHOOK_SECRET_PREVIOUS,
      }),
      pipeline: createDeliveryPipeline({
        enqueue: options.enqueue,
        ...(options.enqueueTimeoutMs === undefined
          ? {}
          : { enqueueTimeoutMs: options.enqueueTimeoutMs }),
      }),
      rejected: options.rejected,
      logger,
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
