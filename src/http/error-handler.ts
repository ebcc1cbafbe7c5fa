import type { ErrorRequestHandler } from 'express';
import type { Logger } from '../logger';
import { HttpError } from './http-error';
import { sendError } from './send-error';
import { errField, stackAtDebug } from '../err-field';

/**
 * Last in the chain: an error a route did not answer itself (a request Express could not read,
 * such as a path that does not decode, or a defect of ours) becomes the listener's JSON error
 * answer. Webhook bodies never get here: webhook-routes.ts reads and answers them itself.
 */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const answer = toHttpError(error);
    const delivery = res.locals.delivery as { outcome?: string; reason?: string } | undefined;
    if (delivery) {
      delivery.outcome = answer.code;
      delivery.reason = answer.message;
    }
    if (answer.status >= 500) {
      logger.error({ err: errField(error) }, 'unhandled error');
      stackAtDebug(logger, {}, error, 'unhandled error');
    }
    sendError(res, answer);
  };
}

function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  // Express marks what it could not read with a 4xx `status` (its own errors carry no code of ours).
  const { status } = (error ?? {}) as { status?: unknown };
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpError(status, 'bad_request', 'the request could not be read');
  }
  return new HttpError(500, 'internal_error', 'internal error');
}
