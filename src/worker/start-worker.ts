import type { Redis } from 'ioredis';
import type { WorkerConfig } from '../config';
import type { Logger } from '../logger';
import { createSvcClient } from '@svcws/client';
import type { SvcClient } from '@svcws/client';
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
import type { Worker } from 'bullmq';
import type { InstitutionEntry } from '../institutions/institutions-file';
import { loadInstitutionsFile } from '../institutions/load-institutions-file';
import { institutionQueueName } from '../institutions/institution-queue-name';
import type { Dispatch } from './handler-registry';
import type { FanOut } from '../routes/create-fan-out';

export interface StartWorkerOptions {
  readonly config: WorkerConfig;
  readonly logger: Logger;
  /** The worker's Redis connection (openWorkerConnection), opened and closed by the caller. */
  readonly connection: Redis;
  /** The API client of the single institution; one built from `config` unless given. */
  readonly client?: SvcClient;
  /**
   * Called with every `X-Svc-Api-Remaining` a built client reads (metrics), and the institution
   * code with INSTITUTIONS_FILE.
   */
  readonly onRemaining?: (remaining: number, institution?: string) => void;
  /** Lock, stall and pause timings (tests make them short). */
  readonly tuning?: Pick<CreateWorkerOptions, 'lockDuration' | 'stalledInterval' | 'budgetPauseMs'>;
  /** Where the route metrics go (the worker's registry); ROUTES_FILE only. */
  readonly registry?: Registry;
  /** For `${VAR}` in ROUTES_FILE and INSTITUTIONS_FILE; the process environment unless given. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface StartedWorker extends RunningWorker {
  /** Every event worker: one per institution with INSTITUTIONS_FILE (`worker` is the first). */
  readonly workers: readonly Worker[];
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
export function startWorker(options: StartWorkerOptions): StartedWorker {
  const { config, logger, connection, tuning = {}, registry, env = process.env } = options;
  // Both files are read at start-up, so a bad one stops the start naming what is wrong.
  const members =
    config.INSTITUTIONS_FILE === undefined
      ? undefined
      : loadInstitutionsFile(config.INSTITUTIONS_FILE, env).institutions;
  const swept = sweepRecordsDir({
    recordsDir: config.RECORDS_DIR,
    idleTimeoutMs: config.SVC_TIMEOUT_MS,
    logger,
  });
  // Routing (docs/routing.md): one set of route queues for every institution's events.
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
  const running = (members ?? [undefined]).map((member) =>
    startEventWorker(options, member, routing?.fanOut),
  );
  const [first] = running;
  if (first === undefined) throw new Error('no event worker');
  return {
    worker: first.worker,
    workers: running.map((one) => one.worker),
    swept,
    close: async () => {
      await Promise.all(running.map((one) => one.close()));
      await routing?.close();
    },
  };
}

/**
 * The worker of one queue: the single institution's (QUEUE_NAME, SVC_* keys) or one member's
 * (its own queue, key, base address, rate limiter and budget). A member's 429 or spent budget
 * sets the rate limit of its own queue only, so the other members' work goes on.
 */
function startEventWorker(
  {
    config,
    logger: parentLogger,
    connection,
    client,
    onRemaining,
    tuning = {},
  }: StartWorkerOptions,
  member: InstitutionEntry | undefined,
  fanOut: FanOut | undefined,
): RunningWorker {
  const logger =
    member === undefined ? parentLogger : parentLogger.child({ institution: member.code });
  const remainingFloor = member?.remainingFloor ?? config.SVC_REMAINING_FLOOR;
  const code = member?.code;
  const svc =
    (member === undefined ? client : undefined) ??
    clientOf(config, member, {
      logger,
      ...(onRemaining === undefined
        ? {}
        : { onRemaining: (remaining: number) => onRemaining(remaining, code) }),
    });
  const handlers = createHandlerRegistry({
    logger,
    handlers: [
      defineHandler(
        createJobEndHandler({
          client: svc,
          isImportJob: createImportJobMatcher(config.IMPORT_JOB_MATCH),
          recordsDir: config.RECORDS_DIR,
          format: member?.downloadFormat ?? config.DOWNLOAD_FORMAT,
          lineTypes: config.DOWNLOAD_LINE_TYPES,
          idleTimeoutMs: config.SVC_TIMEOUT_MS,
        }),
      ),
    ],
  });
  const dispatch: Dispatch =
    fanOut === undefined ? handlers : withFanOut(handlers, memberFanOut(fanOut, member));
  return createWorker({
    connection,
    queueName:
      member === undefined
        ? config.QUEUE_NAME
        : institutionQueueName(config.QUEUE_NAME, member.code),
    concurrency: config.WORKER_CONCURRENCY,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
    dispatch,
    logger,
    remaining: svc.remaining,
    remainingFloor,
    ...tuning,
  });
}

/** The API client of the single institution (SVC_* keys) or of one member (its entry). */
function clientOf(
  config: WorkerConfig,
  member: InstitutionEntry | undefined,
  extra: { logger: Logger; onRemaining?: (remaining: number) => void },
): SvcClient {
  const baseUrl = member?.baseUrl ?? config.SVC_BASE_URL;
  const apiKey = member?.apiKey ?? config.SVC_API_KEY;
  // config.ts requires both without INSTITUTIONS_FILE; the file requires both for a member.
  if (baseUrl === undefined || apiKey === undefined) throw new Error('no API key or base address');
  return createSvcClient({
    baseUrl,
    apiKey,
    ratePerSecond: member?.ratePerSecond ?? config.SVC_RATE_PER_SECOND,
    timeoutMs: config.SVC_TIMEOUT_MS,
    maxRetries: config.SVC_MAX_RETRIES,
    remainingFloor: member?.remainingFloor ?? config.SVC_REMAINING_FLOOR,
    ...extra,
  });
}

/**
 * The route queues are shared by every member, and two members' platforms may use the same event
 * id: a member's route jobs carry its code, so one member's event never hides another's.
 */
function memberFanOut(fanOut: FanOut, member: InstitutionEntry | undefined): FanOut {
  if (member === undefined) return fanOut;
  return (event, jobId) => fanOut(event, `${member.code}-${jobId}`);
}
