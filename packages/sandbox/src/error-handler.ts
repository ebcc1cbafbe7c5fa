import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'svcws-listener';
import { sendError } from './error-body';
import { allowedCodes, findOperation } from './find-operation';
import { OPERATION_CODES, type OperationCodes } from './operation-codes';
import { SandboxError } from './sandbox-error';

const API_PREFIX = '/svcws/v1';

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
 * rule 2; platform routes answer their own body code, parse-request-body.ts); a body over the
 * limit → 413; anything else → 500 (spec §7 rule 3), logged without the request's query (it
 * carries the apikey).
 *
 * The guard (spec §4 rows, §7 rule 2): a 400 on a platform route whose code the operation does not declare
 * (operation-codes.ts) is a sandbox defect, not an answer — it is logged and turned into a 500,
 * so no test against the sandbox can learn an undocumented code.
 */
export function createErrorHandler(
  logger: Logger,
  operations: readonly OperationCodes[] = OPERATION_CODES,
): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof SandboxError) {
      const undeclared = undeclaredCode(operations, req.method, req.path, error);
      if (undeclared !== undefined) {
        logger.error(
          { method: req.method, path: req.path, code: error.code, operation: undeclared },
          'sandbox refused to answer a 400 code its operation does not declare',
        );
        sendError(req, res, {
          status: 500,
          code: 'UNDECLARED_CODE',
          message: `Sandbox defect: ${error.code} is not declared for ${undeclared}`,
        });
        return;
      }
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

/** The operation's route when `error` is a 400 its operation does not declare; else undefined. */
function undeclaredCode(
  operations: readonly OperationCodes[],
  method: string,
  path: string,
  error: SandboxError,
): string | undefined {
  if (error.status !== 400 || !path.startsWith(API_PREFIX)) return undefined;
  const operation = findOperation(operations, method, path.slice(API_PREFIX.length));
  if (operation === undefined) return `${method} ${path.slice(API_PREFIX.length)}`;
  return allowedCodes(operation).has(error.code) ? undefined : operation.route;
}
