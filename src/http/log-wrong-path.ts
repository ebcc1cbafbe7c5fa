import type { Request, Response } from 'express';
import type { Logger } from '../logger';
import type { HttpError } from './http-error';
import { requestIdOf } from './request-id-of';

/** A path longer than this is cut on the line: what was sent there is not known to be short. */
const MAX_PATH = 200;

/**
 * The `delivery` line of a request sent where no webhook is taken (docs/logs.md, "Wrong paths"):
 * a 404 for a path with no route, a 405 for a method the webhook path does not take. A sender
 * configured with a wrong address shows on the same dashboards as its deliveries. Written for
 * requests that may carry a body (every method but GET and HEAD): a probe's GET is not a
 * delivery. Its own requestId answers as `X-Request-Id`; the metrics do not count it.
 */
export function logWrongPath(logger: Logger, req: Request, res: Response, answer: HttpError): void {
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const requestId = requestIdOf(req);
  if (!res.headersSent) res.setHeader('X-Request-Id', requestId);
  logger.warn(
    {
      requestId,
      method: req.method,
      path: req.path.length > MAX_PATH ? `${req.path.slice(0, MAX_PATH)}…` : req.path,
      outcome: answer.code,
      httpStatus: answer.status,
    },
    'delivery',
  );
}
