import type { Redis } from 'ioredis';
import type { WorkerConfig } from '../config';
import type { Logger } from '../logger';
import { createSvcClient } from '../svc-client/create-svc-client';
import type { SvcClient } from '../svc-client/create-svc-client';
import { createWorker } from './create-worker';
import type { CreateWorkerOptions, RunningWorker } from './create-worker';
import { createHandlerRegistry, defineHandler } from './handler-registry';
import { createJobEndHandler } from './job-end/create-job-end-handler';
import { createImportJobMatcher } from './job-end/import-job-matcher';
import { sweepRecordsDir } from './job-end/sweep-records-dir';
import type { Registry } from 'prom-client';
import { loadRoutesFile } from '../routes/load-routes-file';
import { startRouting } from '../routes/start-routing';
import { withFanOut } from '../routes/with-fan-out';

export interface StartWorkerOptions {
  readonly config: WorkerConfig;
  readonly logger: Logger;
  /** The worker's Redis connection (openWorkerConnection), opened and closed by the caller. */
  readonly connection: Redis;
  /** The API client; one built from `config` unless given. */
  readonly client?: SvcClient;
  /** Called with every `X-Svc-Api-Remaining` the built client reads (metrics). */
  readonly onRemaining?: (remaining: number) => void;
  /** Lock, stall and pause timings (tests make them short). */
  readonly tuning?: Pick<CreateWorkerOptions, 'lockDuration' | 'stalledInterval' | 'budgetPauseMs'>;
  /** Where the route metrics go (the worker's registry); ROUTES_FILE only. */
  readonly registry?: Registry;
  /** For `${VAR}` in ROUTES_FILE; the process environment unless given. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface StartedWorker extends RunningWorker {
  /** The start-up sweep of stale temporary files in RECORDS_DIR: the paths it removed. */
  readonly swept: Promise<readonly string[]>;
}

/**
 * Wires the worker from its configuration: the API client, the handler registry (one handler per
 * action) and the BullMQ worker. The composition root (bin/worker.ts) adds signals and exit codes.
 *
 * How often one failing call is sent, at most: (SVC_MAX_RETRIES + 1) × JOB_ATTEMPTS — the client's
 * own retries inside each BullMQ attempt. The worker's SVC_MAX_RETRIES defaults to 0 and
 * JOB_ATTEMPTS to 10 (src/config.ts), so 1 × 10 = 10 sends, spread over the jobs' exponential
 * backoff (5 s doubling: about 21 to 43 minutes in all with its jitter) — long enough to outlast a
 * key rotation or an instance that is still finishing, where the client's quick retries were not.
 * Not counted: a 429 spends no attempt (the queue waits Retry-After each time, and the budget pause
 * holds it when the day's calls are spent), and a run lost with its worker (killed, lock lost)
 * is taken again up to WORKER_MAX_STALLED_COUNT times without spending one.
 */
export function startWorker({
  config,
  logger,
  connection,
  client,
  onRemaining,
  tuning = {},
  registry,
  env = process.env,
}: StartWorkerOptions): StartedWorker {
  const svc =
    client ??
    createSvcClient({
      baseUrl: config.SVC_BASE_URL,
      apiKey: config.SVC_API_KEY,
      logger,
      ratePerSecond: config.SVC_RATE_PER_SECOND,
      timeoutMs: config.SVC_TIMEOUT_MS,
      maxRetries: config.SVC_MAX_RETRIES,
      remainingFloor: config.SVC_REMAINING_FLOOR,
      ...(onRemaining === undefined ? {} : { onRemaining }),
    });
  const handlers = createHandlerRegistry({
    logger,
    handlers: [
      defineHandler(
        createJobEndHandler({
          client: svc,
          isImportJob: createImportJobMatcher(config.IMPORT_JOB_MATCH),
          recordsDir: config.RECORDS_DIR,
          format: config.DOWNLOAD_FORMAT,
          lineTypes: config.DOWNLOAD_LINE_TYPES,
          idleTimeoutMs: config.SVC_TIMEOUT_MS,
        }),
      ),
    ],
  });
  const swept = sweepRecordsDir({
    recordsDir: config.RECORDS_DIR,
    idleTimeoutMs: config.SVC_TIMEOUT_MS,
    logger,
  });
  // Routing (docs/routing.md): read at start-up, so a bad routes file stops the start.
  const routing =
    config.ROUTES_FILE === undefined
      ? undefined
      : startRouting({
          routes: loadRoutesFile(config.ROUTES_FILE, env).routes,
          connection,
          redisUrl: config.REDIS_URL,
          queueName: config.QUEUE_NAME,
          logger,
          ...(registry === undefined ? {} : { registry }),
          ...(tuning.lockDuration === undefined ? {} : { lockDuration: tuning.lockDuration }),
          ...(tuning.stalledInterval === undefined
            ? {}
            : { stalledInterval: tuning.stalledInterval }),
        });
  const running = createWorker({
    connection,
    queueName: config.QUEUE_NAME,
    concurrency: config.WORKER_CONCURRENCY,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
    dispatch: routing === undefined ? handlers : withFanOut(handlers, routing.fanOut),
    logger,
    remaining: svc.remaining,
    remainingFloor: config.SVC_REMAINING_FLOOR,
    ...tuning,
  });
  if (routing === undefined) return { ...running, swept };
  return {
    ...running,
    swept,
    close: async () => {
      await running.close();
      await routing.close();
    },
  };
}
