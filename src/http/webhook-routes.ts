import { randomUUID } from 'node:crypto';
import express from 'express';
import type { Request, Router } from 'express';
import type { Logger } from '../logger';
import type { EnqueueEvent } from '../events/enqueue-event';
import { normalizeEvent } from '../events/normalize-event';
import { parseJsonEvent } from '../events/parse-json-event';
import { parseXmlEvent } from '../events/parse-xml-event';
import { InvalidEventError } from '../events/invalid-event-error';
import type { CanonicalEvent } from '../events/canonical-event';
import { assertUtf8Charset, bodyFormatOf } from './body-format';
import { HttpError } from './http-error';
import { sendError } from './send-error';
import type { DeliveryObserver } from './delivery-observer';

export interface WebhookRoutesOptions {
  path: string;
  /** express.raw's limit: `1mb`, `512kb` … (413 above it). */
  bodyLimit: string;
  verifySignature: (body: Buffer, header: string | undefined) => boolean;
  enqueue: EnqueueEvent;
  logger: Logger;
  /** An enqueue that has not resolved by then is answered 503: the sender gives up after 5 s. */
  enqueueTimeoutMs?: number;
  observer?: DeliveryObserver;
  now?: () => Date;
}

interface Delivery {
  requestId: string;
  started: bigint;
  outcome: string;
  eventId?: string;
  action?: string;
  format?: string;
  jobId?: string;
  bytes?: number;
  reason?: string;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The listener's two routes on WEBHOOK_PATH (spec §6). POST is a fixed pipeline: raw bytes with a
 * size cap → signature over exactly those bytes → format → parse → canonical event → enqueue → 200.
 * Nothing is parsed before the signature holds (CONVENTIONS 4).
 */
export function createWebhookRoutes(options: WebhookRoutesOptions): Router {
  const {
    path,
    bodyLimit,
    verifySignature,
    enqueue,
    logger,
    enqueueTimeoutMs = 1000,
    observer,
    now = () => new Date(),
  } = options;
  const router = express.Router();

  // spec §6.1: echo the challenge as JSON, never as HTML.
  router.get(path, (req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const challenge = req.query.challenge;
    if (typeof challenge !== 'string' || challenge === '') {
      sendError(res, new HttpError(400, 'bad_request', 'query parameter challenge is required'));
      return;
    }
    res.status(200).json({ challenge });
  });

  router.post(
    path,
    (req, res, next) => {
      const delivery: Delivery = {
        requestId: requestIdOf(req),
        started: process.hrtime.bigint(),
        outcome: 'failed',
      };
      res.locals.delivery = delivery;
      res.setHeader('X-Request-Id', delivery.requestId);
      res.on('finish', () => logDelivery(logger, delivery, res.statusCode, observer));
      next();
    },
    express.raw({ type: () => true, limit: bodyLimit }),
    async (req, res) => {
      const delivery = res.locals.delivery as Delivery;
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      delivery.bytes = body.length;
      try {
        if (!verifySignature(body, req.get('x-svc-signature'))) {
          delivery.outcome = 'bad_signature';
          throw new HttpError(
            401,
            'bad_signature',
            'X-Svc-Signature is missing or does not match the body',
          );
        }
        const event = toEvent(req, body, delivery, now());
        delivery.eventId = event.id;
        delivery.action = event.action;
        const result = await withTimeout(enqueue(event), enqueueTimeoutMs);
        delivery.jobId = result.jobId;
        delivery.outcome = result.duplicate ? 'duplicate' : 'queued';
        res.status(200).json({ status: delivery.outcome, id: event.id });
      } catch (error) {
        const answer = classify(error);
        if (delivery.outcome === 'failed') delivery.outcome = answer.code;
        delivery.reason = answer.message;
        if (answer.status >= 500)
          logger.error(
            { err: error, requestId: delivery.requestId, eventId: delivery.eventId },
            'event not queued',
          );
        sendError(res, answer);
      }
    },
  );

  router.all(path, (req, res) => {
    res.setHeader('Allow', 'GET, POST');
    sendError(
      res,
      new HttpError(405, 'method_not_allowed', `${req.method} is not supported on ${path}`),
    );
  });

  return router;
}

function toEvent(req: Request, body: Buffer, delivery: Delivery, receivedAt: Date): CanonicalEvent {
  const contentType = req.get('content-type');
  assertUtf8Charset(contentType);
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    throw new HttpError(400, 'invalid_body', 'body is not valid UTF-8');
  }
  const format = bodyFormatOf(contentType, text);
  delivery.format = format;
  const parsed = format === 'json' ? parseJsonEvent(text) : parseXmlEvent(text);
  return normalizeEvent(parsed, {
    format,
    receivedAt: receivedAt.toISOString(),
    requestId: delivery.requestId,
  });
}

function classify(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof InvalidEventError) return new HttpError(400, 'invalid_event', error.message);
  // Redis refused, timed out or is unreachable: the sender retries a 5xx (1 h, 3 h, 6 h).
  return new HttpError(503, 'queue_unavailable', 'the event could not be queued; try again later');
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`enqueue did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function requestIdOf(req: Request): string {
  const given = req.get('x-request-id');
  return given !== undefined && /^[A-Za-z0-9._-]{1,128}$/.test(given) ? given : randomUUID();
}

function logDelivery(
  logger: Logger,
  delivery: Delivery,
  status: number,
  observer?: DeliveryObserver,
): void {
  const durationMs = Number(process.hrtime.bigint() - delivery.started) / 1e6;
  const line = {
    requestId: delivery.requestId,
    eventId: delivery.eventId,
    action: delivery.action,
    format: delivery.format,
    jobId: delivery.jobId,
    bytes: delivery.bytes,
    outcome: delivery.outcome,
    status,
    durationMs: Math.round(durationMs * 100) / 100,
    reason: delivery.reason,
  };
  if (status >= 500) logger.error(line, 'delivery');
  else if (status >= 400) logger.warn(line, 'delivery');
  else logger.info(line, 'delivery');
  observer?.({ outcome: delivery.outcome, status, durationMs, action: delivery.action });
}
