import type { WorkerConfig } from '../config';
import type { Logger } from '../logger';
import { createSvcClient } from '../svc-client/create-svc-client';
import type { SvcClient } from '../svc-client/create-svc-client';
import { createWorker } from './create-worker';
import type { CreateWorkerOptions, RunningWorker } from './create-worker';
import { createHandlerRegistry, defineHandler } from './handler-registry';
import { createJobEndHandler } from './handlers/job-end';
import { createImportJobMatcher } from './import-job-matcher';
import type { Registry } from 'prom-client';
import { loadRoutesFile } from '../routes/load-routes-file';
import { startRouting } from '../routes/start-routing';
import { withFanOut } from '../routes/with-fan-out';

export interface StartWorkerOptions {
  readonly config: WorkerConfig;
  readonly logger: Logger;
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

/**
 * Wires the worker from its configuration: the API client, the handler registry (one handler per
 * action) and the BullMQ worker. The composition root (bin/worker.ts) adds signals and exit codes.
 */
export function startWorker({
  config,
  logger,
  client,
  onRemaining,
  tuning = {},
  registry,
  env = process.env,
}: StartWorkerOptions): RunningWorker {
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
  // Routing (issue 11): read at start-up, so a bad routes file stops the start.
  const routing =
    config.ROUTES_FILE === undefined
      ? undefined
      : startRouting({
          routes: loadRoutesFile(config.ROUTES_FILE, env).routes,
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
    redisUrl: config.REDIS_URL,
    queueName: config.QUEUE_NAME,
    concurrency: config.WORKER_CONCURRENCY,
    dispatch: routing === undefined ? handlers : withFanOut(handlers, routing.fanOut),
    logger,
    remaining: svc.remaining,
    remainingFloor: config.SVC_REMAINING_FLOOR,
    ...tuning,
  });
  if (routing === undefined) return running;
  return {
    worker: running.worker,
    close: async () => {
      await running.close();
      await routing.close();
    },
  };
}
