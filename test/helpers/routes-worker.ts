import { join } from 'node:path';
import type { RedisClient } from '../../src/redis/redis-client';
import { WorkerConfig, loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createWorkerProcess } from '../../src/processes/worker-process';
import { closeRedis } from '../../src/redis/close-redis';
import { openWorkerConnection } from '../../src/redis/open-worker-connection';
import { readRoutesRun } from '../../src/routes/routes-run-registry';
import { eventually } from '../component/routes/support/route-events';
import { TEST_REDIS_URL } from './redis';

export interface RoutesWorker {
  /** Stops the worker (its registry entry goes at once) and closes its connection. */
  close(): Promise<void>;
}

/**
 * A worker process as bin/worker.ts builds it, reading ROUTES_FILE as the file is now (a
 * "restarted" worker): no API behind it, no reconciliation. `env` adds keys (the console's
 * QUEUE_NAME and ROUTES_FILE); `dir` holds its records folder.
 */
export function startRoutesWorker(
  env: Readonly<Record<string, string>>,
  dir: string,
): RoutesWorker {
  const logger = createLogger({ level: 'silent', name: 'routes-worker' });
  const config = loadConfig(WorkerConfig, {
    ...env,
    REDIS_URL: TEST_REDIS_URL,
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_API_KEY: 'unused',
    RECORDS_DIR: join(dir, 'records'),
    RECONCILE_INTERVAL_SECONDS: '0',
  });
  const connection: RedisClient = openWorkerConnection(TEST_REDIS_URL, logger);
  const running = createWorkerProcess({ config, logger, connection, env });
  return {
    close: async () => {
      await running.close();
      await closeRedis(connection);
    },
  };
}

/** Until the workers alive on `queueName` run exactly these routes (by their registry). */
export function workersRunning(
  redis: RedisClient,
  queueName: string,
  routes: readonly string[],
): Promise<void> {
  const wanted = [...routes].sort().join();
  return eventually(async () => {
    const entries = await readRoutesRun(redis, queueName);
    const run = [...new Set(entries.flatMap((entry) => entry.routes))].sort().join();
    return run === wanted;
  }, `workers running ${wanted}`);
}
