import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHostileJobsApi } from '../../helpers/hostile-jobs-api';
import type { HostileJobsApi } from '../../helpers/hostile-jobs-api';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { spawnWorker } from './support/child-process';
import type { ChildWorker } from './support/child-process';

jest.setTimeout(60_000);

describe('worker process: SIGTERM during a reconciliation run over a job list that never ends', () => {
  let api: HostileJobsApi;
  let queueName: string;
  let recordsDir: string;
  let worker: ChildWorker | undefined;

  beforeEach(async () => {
    api = await startHostileJobsApi('endless-jobs');
    queueName = uniqueQueueName('recon-sigterm');
    recordsDir = await mkdtemp(join(tmpdir(), 'svc-records-'));
  });
  afterEach(async () => {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill('SIGKILL');
    }
    await worker?.exited();
    await api.close();
    await obliterateQueue(queueName);
    await rm(recordsDir, { recursive: true, force: true });
  });

  it('ends the run in flight and exits 0 within SHUTDOWN_TIMEOUT_MS (bin/worker.ts)', async () => {
    worker = spawnWorker('src/bin/worker.ts', {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      SVC_BASE_URL: api.url,
      SVC_API_KEY: 'hostile-key',
      RECORDS_DIR: recordsDir,
      WORKER_METRICS_PORT: '0',
      // The first run comes one interval after start, and may last 80% of it (8 s): far past the
      // 3 s shutdown deadline, which only the run's abort on shutdown can meet.
      RECONCILE_INTERVAL_SECONDS: '10',
      RECONCILE_MAX_PAGES: '10000',
      RECONCILE_BUDGET_PERCENT: '100',
      SHUTDOWN_TIMEOUT_MS: '3000',
    });
    await worker.waitForLine((line) => line.msg === 'worker ready');
    while (api.calls().length < 5) await new Promise((resolve) => setTimeout(resolve, 20));

    worker.child.kill('SIGTERM');
    const code = await worker.exited();

    expect(code).toBe(0);
    const messages = worker.lines().map((line) => line.msg);
    expect(messages).toContain('reconciliation run stopped: the worker is shutting down');
    expect(messages).not.toContain(
      'shutdown deadline passed: cancelling jobs in flight (another worker will take them)',
    );
  });
});
