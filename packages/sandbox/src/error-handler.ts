import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'svcws-listener';
import { sendError } from './error-body';
import { SandboxError } from './sandbox-error';

/** Unknown path → 404 in the error body (docs/platform-shapes.md, spec §7 rule 7). */
export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(req, res, { status: 404, code: 'NOT_FOUND', message: `No such path: ${req.path}` });
};

interface BodyParserError {
  readonly type: string;
  readonly status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { type?: unknown }).type === 'string' &&
    typeof (error as { status?: unknown }).status === 'number'
  );
}

/**
 * SandboxError → its status and code; a malformed body → 400 402119 (general error, spec §7
 * rule 2); a body over the limit → 413; anything else → 500 (spec §7 rule 3), logged without the
 * request's query (it carries the apikey).
 */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof SandboxError) {
      sendError(req, res, { status: error.status, code: error.code, message: error.message });
      return;
    }
    if (isBodyParserError(error) && error.type === 'entity.parse.failed') {
      sendError(req, res, { status: 400, code: '402119', message: 'Malformed request body' });
      return;
    }
    if (isBodyParserError(error) && error.status >= 400 && error.status < 500) {
      sendError(req, res, { status: error.status, code: '402119', message: error.type });
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'sandbox route failed');
    sendError(req, res, { status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal error' });
  };
}
