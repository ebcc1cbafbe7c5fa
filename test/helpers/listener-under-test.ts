import type { SpoolFileWrite } from '../../src/events/spool/spool-writer';
import type { Telemetry } from 'bullmq';
import type { Express } from 'express';
import { loadConfig, WebConfig } from '../../src/config';
import type { EventQueue } from '../../src/events/create-event-queue';
import type { RejectedStore } from '../../src/events/rejected-store';
import { enqueueBoundMs } from '../../src/events/enqueue-bound-ms';
import { createListenerProcess } from '../../src/processes/listener-process';
import type { ListenerProcess } from '../../src/processes/listener-process';
import { closeRedis } from '../../src/redis/close-redis';
import { openProducerConnection } from '../../src/redis/open-producer-connection';
import { captureLogger } from './capture-logger';
import type { CapturedLogger } from './capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from './redis';

export const TEST_SECRET = 'test-secret-current';
export const TEST_PREVIOUS_SECRET = 'test-secret-previous';

export interface ListenerUnderTest {
  app: Express;
  /** The (first) event queue. */
  events: EventQueue;
  queueName: string;
  log: CapturedLogger;
  rejected: RejectedStore;
  /** The whole process, as src/processes/listener-process.ts builds it for bin/web.ts. */
  process: ListenerProcess;
  close: () => Promise<void>;
}

/**
 * The listener process as production builds it (createListenerProcess: metrics timer, enqueue
 * bound, institutions), over a connection opened as bin/web.ts opens it and a queue of its own;
 * `close()` removes the queue's keys. `env` adds or overrides configuration keys.
 */
export function listenerUnderTest(
  overrides: {
    redisUrl?: string;
    bodyLimit?: string;
    previousSecret?: string;
    rejectedMaxCount?: number;
    env?: Readonly<Record<string, string | undefined>>;
    /** BullMQ's telemetry, as bin/web.ts passes it when tracing is on. */
    telemetry?: Telemetry;
    /**
     * The enqueue's bound. Default: production's when `redisUrl` is given (a test of Redis away),
     * else 15 s — the test's Redis answers, and a CPU-starved run must not turn that into a 503.
     */
    enqueueBoundMs?: number;
    /** The spool's write to its files (a small disk of the test's: small-disk-write.ts). */
    spoolWrite?: SpoolFileWrite;
  } = {},
): ListenerUnderTest {
  const queueName = uniqueQueueName('listener');
  const config = loadConfig(WebConfig, {
    REDIS_URL: overrides.redisUrl ?? TEST_REDIS_URL,
    QUEUE_NAME: queueName,
    WEBHOOK_PATH: '/webhooks',
    WEBHOOK_SECRET: TEST_SECRET,
    WEBHOOK_SECRET_PREVIOUS: overrides.previousSecret,
    BODY_LIMIT: overrides.bodyLimit ?? '1mb',
    DEDUP_WINDOW_HOURS: '48',
    JOB_ATTEMPTS: '5',
    REJECTED_MAX_COUNT: String(overrides.rejectedMaxCount ?? 100),
    REJECTED_MAX_AGE_HOURS: '1',
    ...overrides.env,
  });
  const bound =
    overrides.enqueueBoundMs ??
    (overrides.redisUrl === undefined ? 15_000 : enqueueBoundMs(config));
  const connection = openProducerConnection(config, { commandTimeoutMs: bound });
  const log = captureLogger();
  const listener = createListenerProcess({
    config,
    logger: log.logger,
    connection,
    env: overrides.env ?? {},
    telemetry: overrides.telemetry,
    enqueueBoundMs: bound,
    spoolWrite: overrides.spoolWrite,
  });
  const [events] = listener.queues;
  if (events === undefined) throw new Error('no event queue');
  return {
    app: listener.app,
    events,
    queueName,
    log,
    rejected: listener.rejected,
    process: listener,
    close: async () => {
      await listener.close();
      await closeRedis(connection);
      if (overrides.redisUrl === undefined) {
        // QUEUE_NAME also names the rejected store's keys when each institution has its own queue.
        const names = new Set([queueName, ...listener.queues.map((one) => one.queue.name)]);
        for (const name of names) await obliterateQueue(name);
      }
    },
  };
}
