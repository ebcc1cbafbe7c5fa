import type { Express } from 'express';
import { createApp } from '../../src/http/create-app';
import { createEventQueue } from '../../src/events/create-event-queue';
import { closeRedis } from '../../src/redis/close-redis';
import { openProducerConnection } from '../../src/redis/open-producer-connection';
import type { EventQueue } from '../../src/events/create-event-queue';
import { createEventEnqueuer } from '../../src/events/enqueue-event';
import { createRejectedStore } from '../../src/events/rejected-store';
import type { RejectedStore } from '../../src/events/rejected-store';
import { captureLogger } from './capture-logger';
import type { CapturedLogger } from './capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from './redis';

export const TEST_SECRET = 'test-secret-current';
export const TEST_PREVIOUS_SECRET = 'test-secret-previous';

export interface ListenerUnderTest {
  app: Express;
  events: EventQueue;
  queueName: string;
  log: CapturedLogger;
  rejected: RejectedStore;
  close: () => Promise<void>;
}

/** The real app over a real queue of its own; `close()` removes the queue's keys. */
export function listenerUnderTest(
  overrides: {
    redisUrl?: string;
    bodyLimit?: string;
    previousSecret?: string;
    rejectedMaxCount?: number;
  } = {},
): ListenerUnderTest {
  const queueName = uniqueQueueName('listener');
  const connection = openProducerConnection(overrides.redisUrl ?? TEST_REDIS_URL);
  const events = createEventQueue({ connection, queueName });
  const log = captureLogger();
  const rejected = createRejectedStore({
    redis: events.connection,
    queueName,
    maxCount: overrides.rejectedMaxCount ?? 100,
    maxAgeHours: 1,
  });
  const app = createApp({
    config: {
      WEBHOOK_PATH: '/webhooks',
      WEBHOOK_SECRET: TEST_SECRET,
      WEBHOOK_SECRET_PREVIOUS: overrides.previousSecret,
      BODY_LIMIT: overrides.bodyLimit ?? '1mb',
    },
    logger: log.logger,
    enqueue: createEventEnqueuer({ queue: events.queue, dedupWindowHours: 48, attempts: 5 }),
    rejected,
    checkReady: events.ping,
  });
  return {
    app,
    events,
    queueName,
    log,
    rejected,
    close: async () => {
      await events.close();
      await closeRedis(connection);
      if (overrides.redisUrl === undefined) await obliterateQueue(queueName);
    },
  };
}
