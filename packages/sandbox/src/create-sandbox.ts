import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { Router } from 'express';
import type { Express, RequestHandler } from 'express';
import type { Logger } from 'svcws-listener';
import { createAdminRouter, type AdminDeps } from './admin-router';
import { platformAreas } from './areas';
import { createJobsArea } from './areas/jobs';
import { createErrorHandler, notFoundHandler } from './error-handler';
import { createGovernance, type Governance } from './governance';
import { instanceView } from './jobs/instance-view';
import type { JobInstance } from './jobs/job-instance';
import { OPERATION_CODES } from './operation-codes';
import { createRequestBodyParser } from './parse-request-body';
import { createJobStore } from './jobs/job-store';
import type { JobStore } from './jobs/job-store';
import { requireApiKey } from './require-api-key';
import { SandboxConfig } from './sandbox-config';
import type { SandboxArea, SandboxContext } from './sandbox-context';
import { SandboxError } from './sandbox-error';
import { seededRandom } from './seeded-random';
import { createTimerSet, type TimerSet } from './timer-set';
import { createEventFactory, type EventFactory } from './webhooks/event-factory';
import { createWebhookSender } from './webhooks/webhook-sender';
import type { WebhookSender } from './webhooks/webhook-sender';

export interface CreateSandboxOptions {
  /** SandboxConfig keys; missing ones take the schema's defaults. */
  readonly config?: Partial<SandboxConfig>;
  readonly logger: Logger;
  /** The platform areas besides jobs; all of areas/index.ts by default. */
  readonly areas?: readonly SandboxArea[];
  /** The sandbox's notion of now (instance times, governance windows, event times). */
  readonly clock?: () => Date;
  /** Timeout of a webhook challenge or delivery; 5 s by default. */
  readonly webhookTimeoutMs?: number;
}

export interface RunningSandbox {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface Sandbox {
  /** The Express app; it never listens by itself. */
  readonly app: Express;
  /** Listens on 127.0.0.1 (port 0 picks a free port). */
  start(port?: number): Promise<RunningSandbox>;
  readonly webhooks: WebhookSender;
  readonly jobs: () => JobStore;
  /** Re-seeds every area and the jobs, cancels timers; keeps webhook profiles when asked. */
  reset(keepWebhooks?: boolean): void;
  /** Cancels every pending timer (job runs, webhook retries). */
  stop(): void;
}

const INSTITUTION_NAME = 'Sandbox University Library';
const API_BODY_LIMIT = '10mb';

export function createSandbox(options: CreateSandboxOptions): Sandbox {
  const config = { ...SandboxConfig.parse({}), ...options.config };
  const INSTITUTION = { code: config.SANDBOX_INSTITUTION_CODE, name: INSTITUTION_NAME } as const;
  const { logger } = options;
  const now = options.clock ?? ((): Date => new Date());
  const areas = options.areas ?? platformAreas;
  const timers = createTimerSet();
  let baseUrl = `http://127.0.0.1:${String(config.SANDBOX_PORT)}`;
  const webhooks = createWebhookSender({
    logger,
    timers,
    now,
    retryScale: config.SANDBOX_RETRY_SCALE,
    loseOneIn: config.SANDBOX_WEBHOOK_LOSE_ONE_IN,
    timeoutMs: options.webhookTimeoutMs ?? 5000,
  });
  const governance = createGovernance({
    dailyBudget: config.SANDBOX_DAILY_BUDGET,
    ratePerSecond: config.SANDBOX_RATE_PER_SECOND,
    now,
  });

  const view: InstanceView = (instance) => instanceView(instance, now(), baseUrl);
  const { current, reset } = holdPlatform({
    institution: INSTITUTION,
    config,
    now,
    timers,
    areas,
    publicBaseUrl: () => baseUrl,
    webhooks,
    governance,
    view,
  });

  const app = createSandboxApp({
    config,
    logger,
    governance,
    webhooks,
    reset,
    platform: current,
    view,
  });
  return {
    app,
    webhooks,
    jobs: () => current().store,
    reset,
    stop: () => {
      timers.clearAll();
    },
    start: (port = 0) =>
      listen(app, port, timers, (url) => {
        baseUrl = url;
      }),
  };
}

interface AppDeps {
  readonly config: SandboxConfig;
  readonly logger: Logger;
  readonly governance: Governance;
  readonly webhooks: WebhookSender;
  readonly reset: (keepWebhooks: boolean) => void;
  /** The current platform: reset() replaces it. */
  readonly platform: () => Platform;
  readonly view: InstanceView;
}

/** The API under `/svcws/v1` (key, governance, body, areas) and the admin routes under `/sandbox`. */
function createSandboxApp(deps: AppDeps): Express {
  const { config, webhooks, platform, view } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  const currentApi: RequestHandler = (req, res, next) => {
    platform().api(req, res, next);
  };
  app.use(
    '/svcws/v1',
    requireApiKey(config.SANDBOX_API_KEYS),
    deps.governance.middleware,
    createRequestBodyParser({ operations: OPERATION_CODES, limit: API_BODY_LIMIT }),
    currentApi,
  );
  app.use(
    '/sandbox',
    createAdminRouter({
      jobs: () => platform().store,
      webhooks,
      reset: deps.reset,
      run: runJob(() => platform().store, view),
      fire: fireEvent(platform, webhooks, view),
    }),
  );
  app.use(notFoundHandler);
  app.use(createErrorHandler(deps.logger, OPERATION_CODES));
  return app;
}

interface HoldDeps extends Omit<PlatformDeps, 'onInstanceEnd'> {
  readonly webhooks: WebhookSender;
  readonly governance: Governance;
  readonly view: InstanceView;
}

/** The current platform, and the reset that cancels timers and builds it afresh from the seed. */
function holdPlatform(deps: HoldDeps): {
  current: () => Platform;
  reset: (keepWebhooks?: boolean) => void;
} {
  const { timers, webhooks, governance, view } = deps;
  const build = (): Platform =>
    buildPlatform({
      ...deps,
      onInstanceEnd: (instance) => {
        void webhooks.publish('job_end', platform.events.jobEnd(view(instance)));
      },
    });
  let platform = build();
  return {
    current: () => platform,
    reset: (keepWebhooks = false) => {
      timers.clearAll();
      if (!keepWebhooks) webhooks.reset();
      governance.reset();
      platform = build();
    },
  };
}

/** What every reset makes afresh from the seed: the areas' routes and state, jobs, events. */
interface Platform {
  readonly api: Router;
  readonly store: JobStore;
  readonly events: EventFactory;
}

interface PlatformDeps {
  readonly institution: SandboxContext['institution'];
  readonly config: SandboxConfig;
  readonly now: () => Date;
  readonly timers: TimerSet;
  readonly areas: readonly SandboxArea[];
  readonly publicBaseUrl: () => string;
  readonly onInstanceEnd: (instance: JobInstance) => void;
}

function buildPlatform(deps: PlatformDeps): Platform {
  const { institution, config, now, timers } = deps;
  const ctx: SandboxContext = {
    institution,
    random: seededRandom(config.SANDBOX_SEED),
    publicBaseUrl: deps.publicBaseUrl,
    now,
  };
  const events = createEventFactory({
    institution,
    now,
    random: seededRandom(config.SANDBOX_SEED + 1),
  });
  const store = createJobStore({
    now,
    random: ctx.random,
    timers,
    durationMs: config.SANDBOX_JOB_DURATION_MS,
    recordCount: config.SANDBOX_RECORD_COUNT,
    onInstanceEnd: deps.onInstanceEnd,
  });
  const api = Router();
  createJobsArea(store)(api, ctx);
  for (const area of deps.areas) area(api, ctx);
  return { api, store, events };
}

type InstanceView = (instance: JobInstance) => Record<string, unknown>;

/** The admin route's run: an instance of a job now, by the sandbox rather than a client. */
function runJob(store: () => JobStore, view: InstanceView): AdminDeps['run'] {
  return (jobId, records, durationMs) => {
    const job = store().job(jobId);
    if (!job) throw new SandboxError(404, 'NOT_FOUND', `No such job: ${jobId}`);
    const instance = store().run(job, {
      submittedBy: 'sandbox',
      ...(records === undefined ? {} : { records }),
      ...(durationMs === undefined ? {} : { durationMs }),
    });
    return view(instance);
  };
}

/** The admin route's fire: a job_end of an ended instance, or a sample event of another kind. */
function fireEvent(
  platform: () => Platform,
  webhooks: WebhookSender,
  view: InstanceView,
): AdminDeps['fire'] {
  return async (kind, instanceId) => {
    let event;
    if (kind === 'job_end') {
      const instance = instanceId === undefined ? undefined : platform().store.instance(instanceId);
      if (!instance?.end)
        throw new SandboxError(
          422,
          'INVALID_INPUT',
          'job_end needs the instance_id of an ended instance',
        );
      event = platform().events.jobEnd(view(instance));
    } else {
      event = platform().events.sample(kind);
    }
    await webhooks.publish(kind, event);
    return event;
  };
}

/** Listens on 127.0.0.1; closing cancels the timers and drops open connections. */
function listen(
  app: Express,
  port: number,
  timers: TimerSet,
  onListening: (baseUrl: string) => void,
): Promise<RunningSandbox> {
  return new Promise<RunningSandbox>((resolve, reject) => {
    const server = createServer(app);
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address() as AddressInfo;
      const baseUrl = `http://127.0.0.1:${String(address.port)}`;
      onListening(baseUrl);
      resolve({
        url: baseUrl,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            timers.clearAll();
            server.closeAllConnections();
            server.close(() => {
              done();
            });
          }),
      });
    });
  });
}
