import express from 'express';
import type { Request, Response, Router } from 'express';
import { withoutRedaction } from '../logger';
import type { Logger } from '../logger';
import type { RejectedStore } from '../events/rejected-store';
import type { EventIntake } from '../events/event-intake';
import { QueueUnavailableError } from '../events/queue-unavailable-error';
import { RefusedDeliveryError } from '../events/refused-delivery-error';
import { SpoolError } from '../events/spool/spool-error';
import type { RefusalCode } from '../events/refused-delivery-error';
import { HttpError } from './http-error';
import { sendError } from './send-error';
import type { DeliveryObserver } from './delivery-observer';
import { readRawBody } from './read-raw-body';
import type { BodyLimits } from './read-raw-body';
import { isWellFormedSignature } from './webhook-signature';
import type { SecretMatch, SignatureVerifier } from './webhook-signature';
import { errField, stackAtDebug } from '../err-field';
import { messageOf } from '../message-of';
import { requestIdOf } from './request-id-of';
import { logWrongPath } from './log-wrong-path';

/** What checks and queues the deliveries of one path: one institution's secrets and queue. */
export interface WebhookIngress {
  verifySignature: SignatureVerifier;
  /** Parse → normalize → enqueue (src/events/event-intake.ts): what `rejected replay` runs too. */
  intake: EventIntake;
}

interface WebhookRoutesBase {
  path: string;
  /** Caps on the body: bytes off the wire and bytes after Content-Encoding (413 above either). */
  bodyLimits: BodyLimits;
  /** Where signed deliveries that cannot become an event are kept before the 4xx answer. */
  rejected: RejectedStore;
  logger: Logger;
  observer?: DeliveryObserver;
  now?: () => Date;
}

/**
 * One institution on `path` itself, or a consortium (INSTITUTIONS_FILE): one ingress per
 * institution code on `path/{code}`, each with that institution's secrets only.
 */
export type WebhookRoutesOptions = WebhookRoutesBase &
  (WebhookIngress | { institutions: ReadonlyMap<string, WebhookIngress> });

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
  /** Which secret the signature matched: a rotation is finished when `previous` stops appearing. */
  signedWith?: SecretMatch;
  rejectedRef?: string;
  /** Set when a signed delivery was refused: why (its answer's code) and whether it was kept. */
  rejected?: { reason: string; kept: boolean };
  /** The institution code of the path (INSTITUTIONS_FILE only). */
  institution?: string;
  /** The event's `institution.value` once parsed (the line's institution without INSTITUTIONS_FILE). */
  eventInstitution?: string | undefined;
  /** The event's code (`event.value`) once parsed. */
  eventCode?: string | undefined;
}

/**
 * The listener's two routes on WEBHOOK_PATH (spec §6). POST is a fixed pipeline: the signature
 * header's form (401 at once, body unread) → raw bytes with two caps → signature over exactly
 * those bytes → parse → canonical event → enqueue → 200. Nothing is parsed before the signature
 * holds (the signature covers the exact bytes, spec §6.2 rule 3), and nothing signed is
 * answered 4xx before it is kept.
 */
export function createWebhookRoutes(options: WebhookRoutesOptions): Router {
  const { path, logger, observer } = options;
  const deliveryLog = withoutRedaction(logger);
  const router = express.Router();
  const institutions = 'institutions' in options ? options.institutions : undefined;
  const routePath = institutions === undefined ? path : `${path}/:institution`;
  const ingressOf = createIngressLookup(options);

  // spec §6.1: echo the challenge as JSON, never as HTML.
  router.get(routePath, (req, res) => {
    if (ingressOf(req, res) === undefined) return;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const challenge = req.query.challenge;
    if (typeof challenge !== 'string' || challenge === '') {
      sendError(res, new HttpError(400, 'bad_request', 'query parameter challenge is required'));
      return;
    }
    res.status(200).json({ challenge });
  });

  router.post(routePath, async (req, res) => {
    const delivery: Delivery = {
      requestId: requestIdOf(req),
      started: process.hrtime.bigint(),
      outcome: 'failed',
    };
    if (institutions !== undefined) delivery.institution = String(req.params.institution);
    res.locals.delivery = delivery;
    res.setHeader('X-Request-Id', delivery.requestId);
    const ingress = ingressOf(req, res);
    if (ingress === undefined) {
      delivery.outcome = 'unknown_institution';
      // An unknown code is not an institution: the log names it, the metrics do not.
      logger.warn(
        { requestId: delivery.requestId, outcome: 'unknown_institution', httpStatus: 404 },
        'delivery to an unknown institution',
      );
      return;
    }
    res.on('finish', () => logDelivery(deliveryLog, delivery, res.statusCode, observer));
    await receive(req, res, delivery, ingress, options);
  });

  router.all(routePath, (req, res) => {
    if (ingressOf(req, res) === undefined) return;
    res.setHeader('Allow', 'GET, POST');
    const answer = new HttpError(
      405,
      'method_not_allowed',
      `${req.method} is not supported on ${req.path}`,
    );
    logWrongPath(logger, req, res, answer);
    sendError(res, answer);
  });

  return router;
}

/**
 * The ingress of a request's path: the one of a single institution, or the member its
 * `:institution` segment names; an unknown code is answered 404 here, before a byte of the body
 * is read, and the connection closes so it never is.
 */
function createIngressLookup(
  options: WebhookRoutesOptions,
): (req: Request, res: Response) => WebhookIngress | undefined {
  if (!('institutions' in options)) return () => options;
  const { institutions } = options;
  return (req, res) => {
    const code = req.params.institution;
    const found = typeof code === 'string' ? institutions.get(code) : undefined;
    if (found === undefined) {
      res.setHeader('Connection', 'close');
      sendError(res, new HttpError(404, 'unknown_institution', 'no institution on this path'));
    }
    return found;
  };
}

const BAD_SIGNATURE = new HttpError(
  401,
  'bad_signature',
  'X-Svc-Signature is missing or does not match the body',
);

async function receive(
  req: Request,
  res: Response,
  delivery: Delivery,
  ingress: WebhookIngress,
  options: WebhookRoutesOptions,
): Promise<void> {
  const header = req.get('x-svc-signature');
  if (!isWellFormedSignature(header)) {
    // Not even the form of a signature: answer before reading a byte of the body, and close the
    // connection so the rest of it is never read either.
    delivery.outcome = 'bad_signature';
    res.setHeader('Connection', 'close');
    sendError(res, BAD_SIGNATURE);
    return;
  }
  let body: Buffer;
  try {
    body = await readRawBody(req, options.bodyLimits);
  } catch (error) {
    const answer = error instanceof HttpError ? error : new HttpError(400, 'aborted', 'unreadable');
    delivery.outcome = answer.code;
    delivery.reason = answer.message;
    res.setHeader('Connection', 'close');
    if (!res.writableEnded && !req.socket.destroyed) sendError(res, answer);
    return;
  }
  delivery.bytes = body.length;
  const secret = ingress.verifySignature(body, header);
  if (secret === undefined) {
    delivery.outcome = 'bad_signature';
    sendError(res, BAD_SIGNATURE);
    return;
  }
  delivery.signedWith = secret;
  await ingest(req, res, delivery, body, ingress.intake, options);
}

async function ingest(
  req: Request,
  res: Response,
  delivery: Delivery,
  body: Buffer,
  intake: EventIntake,
  options: WebhookRoutesOptions,
): Promise<void> {
  const receivedAt = (options.now ?? (() => new Date()))();
  const contentType = req.get('content-type');
  try {
    const outcome = await intake(
      { body, contentType, receivedAt, requestId: delivery.requestId },
      delivery,
    );
    delivery.jobId = outcome.jobId;
    delivery.outcome =
      outcome.spooled === true ? 'spooled' : outcome.duplicate ? 'duplicate' : 'queued';
    answerOk(res, delivery.outcome, outcome.event.id);
    return;
  } catch (error) {
    let answer = classify(error);
    if (answer.status >= 500) logFailure(options.logger, delivery, error, answer);
    // A 503 (the queue, or the spool too, did not take it) is retried by the sender: not kept.
    if (answer.status !== 503) {
      answer = await keepRejected(options, delivery, answer, { body, contentType, receivedAt });
    }
    delivery.outcome = answer.code;
    delivery.reason = answer.message;
    sendError(res, answer);
  }
}

/**
 * A signed delivery the sender will not retry (4xx), or one we failed on (500), is kept before
 * the answer. If it cannot be kept, the answer becomes a 503 so the sender tries again later.
 */
async function keepRejected(
  options: WebhookRoutesOptions,
  delivery: Delivery,
  answer: HttpError,
  received: { body: Buffer; contentType: string | undefined; receivedAt: Date },
): Promise<HttpError> {
  try {
    const kept = await options.rejected.keep({
      ...received,
      reason: answer.message,
      status: answer.status,
      requestId: delivery.requestId,
      eventId: delivery.eventId,
      ...(delivery.institution === undefined ? {} : { institution: delivery.institution }),
    });
    delivery.rejectedRef = kept.ref;
    delivery.rejected = { reason: answer.code, kept: true };
    if (kept.evicted > 0) {
      options.logger.warn(
        { requestId: delivery.requestId, evicted: kept.evicted },
        'rejected store full: oldest entries dropped (REJECTED_MAX_COUNT, REJECTED_MAX_AGE_HOURS)',
      );
    }
    return answer;
  } catch (error) {
    delivery.rejected = { reason: answer.code, kept: false };
    options.logger.error(
      { err: errField(error), requestId: delivery.requestId, eventId: delivery.eventId },
      'refused delivery could not be kept; answering 503 so the sender retries',
    );
    if (error instanceof SpoolError) return new HttpError(503, error.code, error.message);
    return new HttpError(
      503,
      'queue_unavailable',
      'the delivery could not be kept; try again later',
    );
  }
}

/**
 * The 200 as `res.status(200).json(...)` writes it (same headers, same bytes), without Express's
 * content negotiation and freshness checks: it is written once per delivery.
 */
function answerOk(res: Response, status: string, id: string): void {
  const body = JSON.stringify({ status, id });
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The status of each refusal: 415 for a body in a form we do not read, 400 for the rest. */
const REFUSAL_STATUS: Readonly<Record<RefusalCode, number>> = {
  invalid_event: 400,
  invalid_body: 400,
  unsupported_media_type: 415,
  unsupported_charset: 415,
  wrong_institution: 400,
};

/** Only a queue that does not answer is a 503; a defect of ours is a 500 (the sender retries a 5xx, never a 4xx). */
function classify(error: unknown): HttpError {
  if (error instanceof RefusedDeliveryError) {
    return new HttpError(REFUSAL_STATUS[error.code], error.code, error.message);
  }
  if (error instanceof SpoolError) return new HttpError(503, error.code, error.message);
  if (error instanceof QueueUnavailableError) {
    // Redis refused, timed out or is unreachable: the sender retries a 5xx (1 h, 3 h, 6 h).
    return new HttpError(
      503,
      'queue_unavailable',
      'the event could not be queued; try again later',
    );
  }
  return new HttpError(500, 'internal_error', 'the delivery could not be processed');
}

function logFailure(logger: Logger, delivery: Delivery, error: unknown, answer: HttpError): void {
  const ids = { requestId: delivery.requestId, eventId: delivery.eventId };
  if (answer.status === 503) {
    // An outage answers every delivery 503: one line each, its stack only at debug.
    logger.error(
      {
        ...ids,
        code: answer.code,
        reason: messageOf(error, { withCause: false }),
        err: errField(error),
      },
      'event not queued: queue unavailable',
    );
    stackAtDebug(logger, ids, error, 'event not queued');
    return;
  }
  logger.error({ ...ids, err: errField(error) }, 'event not queued: internal error');
  stackAtDebug(logger, ids, error, 'event not queued');
}

/** `logger` is the route's withoutRedaction child: every field of this line is fixed here. */
function logDelivery(
  logger: Logger,
  delivery: Delivery,
  status: number,
  observer?: DeliveryObserver,
): void {
  const durationMs = Number(process.hrtime.bigint() - delivery.started) / 1e6;
  const line = {
    requestId: delivery.requestId,
    // The path's code with INSTITUTIONS_FILE (a body naming another is refused), else the event's.
    institution: delivery.institution ?? delivery.eventInstitution,
    eventId: delivery.eventId,
    action: delivery.action,
    event: delivery.eventCode,
    format: delivery.format,
    queueJobId: delivery.jobId,
    bytes: delivery.bytes,
    signedWith: delivery.signedWith,
    outcome: delivery.outcome,
    httpStatus: status,
    durationMs: Math.round(durationMs * 100) / 100,
    reason: delivery.reason,
    rejectedRef: delivery.rejectedRef,
  };
  if (status >= 500) logger.error(line, 'delivery');
  else if (status >= 400) logger.warn(line, 'delivery');
  else logger.info(line, 'delivery');
  observer?.({
    outcome: delivery.outcome,
    status,
    durationMs,
    action: delivery.action,
    ...(delivery.rejected === undefined ? {} : { rejected: delivery.rejected }),
    ...(delivery.institution === undefined ? {} : { institution: delivery.institution }),
    ...(delivery.eventInstitution === undefined
      ? {}
      : { eventInstitution: delivery.eventInstitution }),
  });
}
