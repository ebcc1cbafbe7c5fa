import type { RequestHandler } from 'express';
import { SandboxError } from './sandbox-error';

/**
 * spec §5 rule 1: the key is the `apikey` query parameter. Missing or unknown → 401 UNAUTHORIZED
 * (docs/platform-shapes.md). The key never reaches a message or a log line.
 */
export function requireApiKey(validKeys: readonly string[]): RequestHandler {
  const keys = new Set(validKeys);
  return (req, _res, next) => {
    const key = req.query.apikey;
    if (typeof key !== 'string' || key === '') {
      next(new SandboxError(401, 'UNAUTHORIZED', 'API key is missing'));
      return;
    }
    if (!keys.has(key)) {
      next(new SandboxError(401, 'UNAUTHORIZED', 'API key is not valid'));
      return;
    }
    next();
  };
}
