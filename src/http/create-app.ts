import express from 'express';
import type { Express, Router } from 'express';
import type { Logger } from '../logger';
import type { EnqueueEvent } from '../events/enqueue-event';
import type { RejectedStore } from '../events/rejected-store';
import { createWebhookRoutes } from './webhook-routes';
import { createHealthRoutes } from './health-routes';
import type { HealthRoutesOptions } from './health-routes';
import { createErrorHandler } from './error-handler';
import { createSignatureVerifier } from './webhook-signature';
import type { DeliveryObserver } from './delivery-observer';
import { HttpError } from './http-error';
import { sendError } from './send-error';
import { createEventIntake } from '../events/event-intake';
import { parseByteSize } from './parse-byte-size';
import type { WebhookIngress } from './webhook-routes';
import { enqueueForInstitution } from '../events/enqueue-for-institution';
import { logWrongPath } from './log-wrong-path';

/** One member of a consortium (INSTITUTIONS_FILE), as the listener needs it. */
export interface AppInstitution {
  code: string;
  webhookSecret: string;
  webhookSecretPrevious?: string | undefined;
  /** The enqueue of this institution's own queue (institution-queue-name.ts). */
  enqueue: EnqueueEvent;
}

export interface CreateAppOptions {
  config: {
    WEBHOOK_PATH: string;
    /** The single institution's secret; unused (and may be unset) with `institutions`. */
    WEBHOOK_SECRET?: string | undefined;
    WEBHOOK_SECRET_PREVIOUS?: string | undefined;
    BODY_LIMIT: string;
  };
  logger: Logger;
  /** The single institution's enqueue; unused with `institutions`. */
  enqueue?: EnqueueEvent;
  /**
   * A consortium: each institution on WEBHOOK_PATH/{code}, checked with its own secrets only and
   * queued to its own queue. Replaces WEBHOOK_SECRET and `enqueue`.
   */
  institutions?: readonly AppInstitution[];
  /** Where signed deliveries that cannot become an event are kept (createRejectedStore). */
  rejected: RejectedStore;
  checkReady: () => Promise<void>;
  /** On a Redis Cluster, its nodes for /readyz (undefined on one Redis). */
  clusterNodes?: HealthRoutesOptions['clusterNodes'];
  enqueueTimeoutMs?: number;
  observer?: DeliveryObserver;
  /** More routers (metrics, admin dashboard), mounted before the 404. */
  extraRoutes?: Router[];
}

/**
 * The listener's Express app. It never listens itself: src/bin/web.ts does, and applies
 * configureServer for the timeouts and the connection cap. Throws on a secret under 16 characters,
 * and without either WEBHOOK_SECRET and `enqueue` or `institutions`.
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
      ...ingressOf(options),
      rejected: options.rejected,
      logger,
      ...(options.observer === undefined ? {} : { observer: options.observer }),
    }),
  );
  app.use(createHealthRoutes(healthOf(options)));
  for (const router of options.extraRoutes ?? []) app.use(router);
  app.use((req, res) => {
    const answer = new HttpError(404, 'not_found', `no route for ${req.method} ${req.path}`);
    logWrongPath(logger, req, res, answer);
    sendError(res, answer);
  });
  app.use(createErrorHandler(logger));
  return app;
}

/** The single institution's ingress, or one per institution code. */
function ingressOf(
  options: CreateAppOptions,
): WebhookIngress | { institutions: ReadonlyMap<string, WebhookIngress> } {
  const intakeOf = (enqueue: EnqueueEvent) =>
    createEventIntake({
      enqueue,
      ...(options.enqueueTimeoutMs === undefined
        ? {}
        : { enqueueTimeoutMs: options.enqueueTimeoutMs }),
    });
  if (options.institutions !== undefined) {
    const institutions = new Map<string, WebhookIngress>();
    for (const institution of options.institutions) {
      institutions.set(institution.code, {
        verifySignature: createSignatureVerifier({
          current: institution.webhookSecret,
          previous: institution.webhookSecretPrevious,
        }),
        intake: intakeOf(enqueueForInstitution(institution.code, institution.enqueue)),
      });
    }
    return { institutions };
  }
  const { WEBHOOK_SECRET: secret, WEBHOOK_SECRET_PREVIOUS: previous } = options.config;
  if (secret === undefined || options.enqueue === undefined) {
    throw new Error('createApp: WEBHOOK_SECRET and enqueue, or institutions, are required');
  }
  return {
    verifySignature: createSignatureVerifier({ current: secret, previous }),
    intake: intakeOf(options.enqueue),
  };
}

function healthOf(options: {
  checkReady: () => Promise<void>;
  clusterNodes?: HealthRoutesOptions['clusterNodes'];
}): HealthRoutesOptions {
  const { checkReady, clusterNodes } = options;
  return clusterNodes === undefined ? { checkReady } : { checkReady, clusterNodes };
}
