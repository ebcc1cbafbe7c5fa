import express from 'express';
import type { Express, RequestHandler, Router } from 'express';
import type { Queue } from 'bullmq';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { HttpError } from '../../http/http-error';
import { sendError } from '../../http/send-error';
import { createTokenMatcher } from '../../http/token-matcher';

export interface AdminDashboardOptions {
  queues: readonly Queue[];
  /** ADMIN_TOKEN. Unset (or empty) → the router has no routes: the dashboard does not exist. */
  token: string | undefined;
  basePath?: string;
}

/**
 * A read-only bull-board at `/admin/queues` behind ADMIN_TOKEN. The token is accepted as
 * `Authorization: Bearer <token>` (scripts, a proxy) or as the password of Basic auth, so a browser
 * can open the page: its login prompt then sends the header with every asset and API call.
 * `readOnlyMode` is enforced by bull-board's API too, not only hidden in the UI: retry, clean,
 * pause and remove answer an error.
 */
export function createAdminDashboard({
  queues,
  token,
  basePath = '/admin/queues',
}: AdminDashboardOptions): Router {
  const router = express.Router();
  if (token === undefined || token === '') return router;

  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(basePath);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'svcws events' } },
  });
  const board = serverAdapter.getRouter() as Express;
  router.use(basePath, requireToken(token), board);
  return router;
}

function requireToken(token: string): RequestHandler {
  const matches = createTokenMatcher(token);
  return (req, res, next) => {
    if (matches(tokenOf(req.get('authorization')))) {
      next();
      return;
    }
    res.setHeader('WWW-Authenticate', ['Bearer realm="admin"', 'Basic realm="admin"']);
    sendError(res, new HttpError(401, 'unauthorized', 'a valid admin token is required'));
  };
}

function tokenOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const [scheme, value] = header.trim().split(/\s+/, 2);
  if (value === undefined) return undefined;
  if (/^bearer$/i.test(scheme ?? '')) return value;
  if (/^basic$/i.test(scheme ?? '')) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? undefined : decoded.slice(colon + 1);
  }
  return undefined;
}
