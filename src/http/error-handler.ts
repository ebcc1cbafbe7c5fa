import type { ErrorRequestHandler } from 'express';
import type { Logger } from '../logger';
import { HttpError } from './http-error';
import { sendError } from './send-error';

interface BodyParserError {
  status?: number;
  type?: string;
}

/**
 * Last in the chain: errors raised before a route could answer — mostly express.raw's (413 body
 * too large, 415 content encoding, 400 aborted) — become the listener's JSON error answer.
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
    if (answer.status >= 500) logger.error({ err: error }, 'unhandled error');
    sendError(res, answer);
  };
}

function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const { status, type } = (error ?? {}) as BodyParserError;
  switch (type) {
    case 'entity.too.large':
      return new HttpError(413, 'body_too_large', 'body is larger than BODY_LIMIT allows');
    case 'encoding.unsupported':
      return new HttpError(415, 'unsupported_encoding', 'Content-Encoding is not supported');
    case 'request.aborted':
      return new HttpError(400, 'aborted', 'the request was aborted before the body was read');
    case 'request.size.invalid':
      return new HttpError(400, 'bad_length', 'the body does not match its Content-Length');
    default:
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return new HttpError(status, 'bad_request', 'the request could not be read');
      }
      return new HttpError(500, 'internal_error', 'internal error');
  }
}
