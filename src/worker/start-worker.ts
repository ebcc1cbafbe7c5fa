import type { WorkerConfig } from '../config';
import type { Logger } from '../logger';
import { createSvcClient } from '../svc-client/create-svc-client';
import type { SvcClient } from '../svc-client/create-svc-client';
import { createWorker } from './create-worker';
import type { CreateWorkerOptions, RunningWorker } from './create-worker';
import { createHandlerRegistry, defineHandler } from './handler-registry';
import { createJobEndHandler } from './handlers/job-end';
import { createImportJobMatcher } from './import-job-matcher';

export interface StartWorkerOptions {
  readonly config: WorkerConfig;
  readonly logger: Logger;
  /** The API client; one built from `config` unless given. */
  readonly client?: SvcClient;
  /** Called with every `X-Svc-Api-Remaining` the built client reads (metrics). */
  readonly onRemaining?: (remaining: number) => void;
  /** Lock, stall and pause timings (tests make them short). */
  readonly tuning?: Pick<CreateWorkerOptions, 'lockDuration' | 'stalledInterval' | 'budgetPauseMs'>;
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
  const dispatch = createHandlerRegistry({
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
  return createWorker({
    redisUrl: config.REDIS_URL,
    queueName: config.QUEUE_NAME,
    concurrency: config.WORKER_CONCURRENCY,
    dispatch,
    logger,
    remaining: svc.remaining,
    remainingFloor: config.SVC_REMAINING_FLOOR,
    ...tuning,
  });
}
