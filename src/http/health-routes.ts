import express from 'express';
import type { Router } from 'express';
import { SpoolError } from '../events/spool/spool-error';
import { withTimeout } from '../with-timeout';

export interface HealthRoutesOptions {
  /** Resolves when the queue's Redis answers; rejects or times out otherwise. */
  checkReady: () => Promise<void>;
  readyTimeoutMs?: number;
}

/**
 * `/healthz`: the process is up. `/readyz`: it can queue events (Redis answers), or with a spool
 * keep them (src/events/spool/open-listener-spool.ts).
 */
export function createHealthRoutes({
  checkReady,
  readyTimeoutMs = 1000,
}: HealthRoutesOptions): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await withTimeout(checkReady(), readyTimeoutMs, () => new Error('timeout'));
      res.status(200).json({ status: 'ready' });
    } catch (error) {
      // The spool's own reason (it cannot be written) rather than Redis's.
      const message = error instanceof SpoolError ? error.message : 'Redis does not answer';
      res.status(503).json({ status: 'unavailable', message });
    }
  });
  return router;
}
