import express from 'express';
import type { NextFunction, Request, Response, Router } from 'express';
import type { Logger } from '../../logger';
import type { Operation } from './api-operations';
import type { ConsoleAuth } from '../auth/console-auth';
import { consoleError, toHttpError } from '../data/console-error';
import { openApiDocument } from './openapi-document';
import { errField, stackAtDebug } from '../../err-field';

/**
 * /api/v1: one route per operation, each answering through its response schema. A bearer token
 * signs a call; a browser's session cookie or the proxy's identity does too, but then a POST must
 * carry the page's CSRF token in `X-CSRF-Token`, whatever else it carries (auth.needsCsrf).
 * Errors are `{ error, message }`.
 */
export function apiRouter(deps: {
  operations: readonly Operation[];
  auth: ConsoleAuth;
  logger: Logger;
  /** The console's Redis is connected: a call that fails while it is not answers 503 redis_down. */
  redisReady: () => boolean;
}): Router {
  const router = express.Router();
  const document = openApiDocument(deps.operations);
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use(express.json({ limit: '64kb' }));
  for (const operation of deps.operations) {
    const path = operation.path.replace(/\{(\w+)\}/g, ':$1');
    router[operation.method](path, async (req: Request, res: Response) => {
      const principal = deps.auth.principalOf(req);
      if (principal === undefined) throw consoleError.unsigned();
      if (operation.method === 'post' && deps.auth.needsCsrf(principal)) {
        if (!deps.auth.csrfHolds(req, req.get('x-csrf-token'))) throw consoleError.csrf();
      }
      let result: unknown;
      try {
        const query = parseOr400(operation.query, req.query, 'query');
        const body = parseOr400(operation.body, req.body, 'body');
        result = await operation.handle({
          principal,
          params: req.params as Record<string, string>,
          query: query as Record<string, string>,
          body,
        });
      } catch (error) {
        if (toHttpError(error).status < 500) await operation.refused?.(principal, req.body, error);
        throw error;
      }
      const answer: unknown = operation.response.parse(result);
      const location = operation.accepted?.(answer);
      if (location !== undefined) res.status(202).location(location);
      res.json(answer);
    });
  }
  router.use((_req: Request, _res: Response, next: NextFunction) => {
    next(consoleError.notFound('such API call'));
  });
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    let known = toHttpError(error);
    if (known.code === 'internal' && !deps.redisReady()) known = consoleError.redisDown('this');
    if (known.status >= 500 && known.code === 'internal') {
      deps.logger.error({ err: errField(error) }, 'console API call failed');
      stackAtDebug(deps.logger, {}, error, 'console API call failed');
    }
    res.status(known.status).json({ error: known.code, message: known.message });
  });
  return router;
}

function parseOr400(
  schema:
    | {
        safeParse: (value: unknown) => {
          success: boolean;
          data?: unknown;
          error?: { issues: { path: PropertyKey[]; message: string }[] };
        };
      }
    | undefined,
  value: unknown,
  where: string,
): unknown {
  if (schema === undefined) return value ?? {};
  const result = schema.safeParse(value ?? undefined);
  if (result.success) return result.data ?? {};
  const issue = result.error?.issues[0];
  const field =
    issue === undefined || issue.path.length === 0
      ? where
      : `${where}.${issue.path.map(String).join('.')}`;
  throw consoleError.badField(field, issue?.message ?? 'invalid');
}
