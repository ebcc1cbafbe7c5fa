import express from 'express';
import type { Router } from 'express';
import { SpoolError } from '../events/spool/spool-error';
import { withTimeout } from '../with-timeout';
import type { ClusterNodeState } from '../redis/cluster-node-states';

export interface HealthRoutesOptions {
  /** Resolves when the queue's Redis answers; rejects or times out otherwise. */
  checkReady: () => Promise<void>;
  /** On a Redis Cluster: its nodes and their state, shown by /readyz (undefined on one Redis). */
  clusterNodes?: () => Promise<readonly ClusterNodeState[] | undefined>;
  readyTimeoutMs?: number;
}

/**
 * `/healthz`: the process is up. `/readyz`: it can queue events (Redis answers), or with a spool
 * keep them (src/events/spool/open-listener-spool.ts); on a Redis Cluster it also lists the nodes
 * as the cluster sees them (`redisNodes`: which answer, which the cluster failed).
 */
export function createHealthRoutes({
  checkReady,
  clusterNodes,
  readyTimeoutMs = 1000,
}: HealthRoutesOptions): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const nodes = clusterNodes?.().catch(() => []);
    try {
      await withTimeout(checkReady(), readyTimeoutMs, () => new Error('timeout'));
      res.status(200).json({ status: 'ready', ...(await nodesField(nodes)) });
    } catch (error) {
      // The spool's own reason (it cannot be written) rather than Redis's.
      const message = error instanceof SpoolError ? error.message : 'Redis does not answer';
      res.status(503).json({ status: 'unavailable', message, ...(await nodesField(nodes)) });
    }
  });
  return router;
}

async function nodesField(
  nodes: Promise<readonly ClusterNodeState[] | undefined> | undefined,
): Promise<{ redisNodes?: readonly ClusterNodeState[] }> {
  const known = await nodes;
  return known === undefined ? {} : { redisNodes: known };
}
