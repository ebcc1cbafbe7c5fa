import express from 'express';
import type { Router } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { metricsTokenGuard } from './metrics-token-guard';
import { serveMetrics } from './serve-metrics';
import type { MetricsServer } from './serve-metrics';

export interface WorkerMetrics {
  /** The registry behind `/metrics`; exposed so a test or a composition root can read it. */
  registry: Registry;
  /** One job finished without throwing (also: an unknown action, completed on purpose). */
  jobProcessed: (action: string, seconds: number) => void;
  /** One attempt of a job threw (a retry to come, or the failed set); `seconds` when known. */
  jobFailed: (action: string, seconds?: number) => void;
  /** API calls sent (one by default; a handler may report its calls at once). */
  apiCall: (count?: number) => void;
  /**
   * The latest `X-Svc-Api-Remaining` (spec §1.3): pass as the client's `onRemaining`. With
   * INSTITUTIONS_FILE each member has its own budget: the institution is a label.
   */
  remaining: (value: number, institution?: string) => void;
  /** Serves `GET /metrics` (and nothing else) on its own port, on `host` when given. */
  listen: (port: number, host?: string) => Promise<MetricsServer>;
}

export interface WorkerMetricsOptions {
  /** Node process metrics (heap, event loop lag, …) under the same prefix; on by default. */
  defaultMetrics?: boolean;
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`; unset, it is open. */
  token?: string | undefined;
}

/** Seconds: a non-import job takes one API call; an import downloads a file of any size. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * The worker's own metrics, on its own registry (no prom-client global), and a server of their
 * own for WORKER_METRICS_PORT (on WORKER_METRICS_HOST): the worker has no other HTTP server.
 */
export function createWorkerMetrics(options: WorkerMetricsOptions = {}): WorkerMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const processed = new Counter({
    name: 'svcws_worker_jobs_processed_total',
    help: 'Jobs completed by the worker, by canonical action',
    labelNames: ['action'] as const,
    registers: [registry],
  });
  const failed = new Counter({
    name: 'svcws_worker_jobs_failed_total',
    help: 'Job attempts that threw (retried or moved to the failed set), by canonical action',
    labelNames: ['action'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svcws_worker_job_duration_seconds',
    help: 'Time spent on one job attempt, by canonical action and outcome (completed|failed)',
    labelNames: ['action', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const apiCalls = new Counter({
    name: 'svcws_worker_api_calls_total',
    help: 'Calls the worker sent to the service API',
    registers: [registry],
  });
  const remaining = new Gauge({
    name: 'svcws_worker_api_remaining',
    help: 'The latest X-Svc-Api-Remaining the service answered (spec §1.3), by institution with INSTITUTIONS_FILE',
    labelNames: ['institution'] as const,
    registers: [registry],
  });

  return {
    registry,
    jobProcessed: (action, seconds) => {
      processed.inc({ action });
      duration.observe({ action, outcome: 'completed' }, seconds);
    },
    jobFailed: (action, seconds) => {
      failed.inc({ action });
      if (seconds !== undefined) duration.observe({ action, outcome: 'failed' }, seconds);
    },
    apiCall: (count = 1) => apiCalls.inc(count),
    remaining: (value, institution) =>
      institution === undefined ? remaining.set(value) : remaining.set({ institution }, value),
    listen: (port, host) => serveMetrics(workerMetricsRouter(registry, options.token), port, host),
  };
}

/** `GET /metrics` (HEAD too) behind the token guard: the registry, 500 when it cannot be read. */
function workerMetricsRouter(registry: Registry, token: string | undefined): Router {
  const router = express.Router();
  router.get('/metrics', ...metricsTokenGuard({ token }), (_req, res) => {
    registry.metrics().then(
      (text) => {
        res.status(200).type(registry.contentType).send(text);
      },
      () => {
        res.status(500).type('text/plain; charset=utf-8').send('metrics failed\n');
      },
    );
  });
  return router;
}
