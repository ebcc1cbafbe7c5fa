import { loadConfig, WorkerConfig } from '../../../../src/config';
import { createLogger } from '../../../../src/logger';
import { openWorkerConnection } from '../../../../src/redis/open-worker-connection';
import { createWorkerProcess } from '../../../../src/processes/worker-process';

/**
 * The worker as its own process, like bin/worker.ts, with the lock and stall timings short
 * (TEST_LOCK_MS, TEST_STALLED_MS) so a SIGKILLed worker's job is recovered in seconds, and with
 * history on, a dead writer's pending records taken over after TEST_CLAIM_IDLE_MS.
 */
const config = loadConfig(WorkerConfig, process.env);
const logger = createLogger({ level: 'info', name: 'worker-child' });
const running = createWorkerProcess({
  config,
  logger,
  connection: openWorkerConnection(config.REDIS_URL, logger),
  env: process.env,
  tuning: {
    lockDuration: Number(process.env.TEST_LOCK_MS ?? 3000),
    stalledInterval: Number(process.env.TEST_STALLED_MS ?? 1500),
  },
  historyOptions: { writer: { claimIdleMs: Number(process.env.TEST_CLAIM_IDLE_MS ?? 30_000) } },
});
void Promise.all([
  ...running.workers.map((worker) => worker.waitUntilReady()),
  running.startedUp,
]).then(() => logger.info('worker ready'));
