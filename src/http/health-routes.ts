import express from 'express';
import type { Router } from 'express';

export interface HealthRoutesOptions {
  /** Resolves when the queue's Redis answers; rejects or times out otherwise. */
  checkReady: () => Promise<void>;
  readyTimeoutMs?: number;
}

/** `/healthz`: the process is up. `/readyz`: it can queue events (Redis answers). */
export function createHealthRoutes({
  checkReady,
  readyTimeoutMs = 1000,
}: HealthRoutesOptions): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        checkReady(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), readyTimeoutMs);
        }),
      ]);
      res.status(200).json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'unavailable', message: 'Redis does not answer' });
    } finally {
      clearTimeout(timer);
    }
  });
  return router;
}
