import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerConfig } from '../../../src/config';
import { createWorkerMetrics } from '../../../src/metrics/worker-metrics';
import type { WorkerMetrics } from '../../../src/metrics/worker-metrics';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { captureLogger } from '../../helpers/capture-logger';
import type { CapturedLogger } from '../../helpers/capture-logger';
import { startHostileJobsApi, workerEnvAgainst } from '../../helpers/hostile-jobs-api';
import type { HostileJobsApi, HostileMode } from '../../helpers/hostile-jobs-api';
import { waitFor } from '../../helpers/listener-on-port';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

jest.setTimeout(60_000);

const INSTITUTION = 'INST';
const RUN_DONE = 'reconciliation run done';
const RUN_FAILED = 'reconciliation run failed: the next run covers its window again';

/**
 * The worker process as bin/worker.ts builds it (its config read from the environment's keys,
 * its metrics), reconciling every second against a hostile stand-in of the jobs API
 * (test/helpers/hostile-jobs-api.ts): the schedule, the client's caps and the cut metric together.
 */
describe("the worker's scheduled reconciliation, against a platform whose lists misbehave", () => {
  let api: HostileJobsApi | undefined;
  let worker: WorkerProcess | undefined;
  let metrics: WorkerMetrics;
  let log: CapturedLogger;
  let queueName: string;
  let recordsDir: string;
  let connection: ReturnType<typeof openWorkerConnection> | undefined;

  beforeEach(async () => {
    log = captureLogger();
    metrics = createWorkerMetrics({ defaultMetrics: false });
    queueName = uniqueQueueName('recon-schedule');
    recordsDir = await mkdtemp(join(tmpdir(), 'svc-recon-schedule-'));
  });
  afterEach(async () => {
    await worker?.close();
    if (connection !== undefined) await closeRedis(connection);
    await api?.close();
    await obliterateQueue(queueName);
    await rm(recordsDir, { recursive: true, force: true });
    worker = undefined;
    connection = undefined;
    api = undefined;
  });

  async function startWorker(
    mode: HostileMode,
    env: Record<string, string>,
    hugeBytes?: number,
  ): Promise<void> {
    api = await startHostileJobsApi(mode, { remaining: 1_000_000, hugeBytes });
    const config = WorkerConfig.parse({
      ...workerEnvAgainst(api, queueName),
      SVC_RATE_PER_SECOND: '1000',
      RECORDS_DIR: recordsDir,
      INSTITUTION_CODE: INSTITUTION,
      RECONCILE_INTERVAL_SECONDS: '1',
      ...env,
    });
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
    worker = createWorkerProcess({ config, logger: log.logger, connection, env: {}, metrics });
    await worker.startedUp;
  }

  const linesSaying = (msg: string) => log.lines().filter((line) => line.msg === msg);

  /** `svcws_reconcile_cuts_total` of the institution, by `cap`. */
  async function cutsByCap(): Promise<Record<string, number>> {
    const metric = await metrics.registry.getSingleMetric('svcws_reconcile_cuts_total')?.get();
    return Object.fromEntries(
      (metric?.values ?? [])
        .filter((one) => one.labels.institution === INSTITUTION)
        .map((one) => [String(one.labels.cap), one.value]),
    );
  }

  it('counts a list cut short in svcws_reconcile_cuts_total, labelled by the cap that cut it', async () => {
    await startWorker('endless-jobs', { RECONCILE_MAX_PAGES: '2' });

    await waitFor(async () => ((await cutsByCap()).pages ?? 0) >= 1, 'a cut counted');

    expect(
      linesSaying('reconciliation cut off by a cap: the next run covers the rest')[0],
    ).toMatchObject({
      cap: 'pages',
      list: 'jobs',
      institution: INSTITUTION,
    });
  });

  it('ends a run at 80% of RECONCILE_INTERVAL_SECONDS, whatever RECONCILE_MAX_RUN_SECONDS says', async () => {
    // A job list that never ends, no page or budget bound within reach: only the run's time ends
    // it. Left to RECONCILE_MAX_RUN_SECONDS, the first run would last five minutes.
    await startWorker('endless-jobs', {
      RECONCILE_MAX_PAGES: '10000',
      RECONCILE_BUDGET_PERCENT: '100',
      RECONCILE_MAX_RUN_SECONDS: '300',
    });

    await waitFor(() => linesSaying(RUN_DONE).length >= 1, 'the first run to end', 20_000);

    expect(linesSaying(RUN_DONE)[0]).toMatchObject({
      institution: INSTITUTION,
      complete: false,
      stoppedBecause: 'run time',
      cuts: ['run_time'],
    });
    expect((await cutsByCap()).run_time).toBeGreaterThanOrEqual(1);
  });

  it('fails a run on a job list page past SVC_MAX_LIST_BYTES with the client’s BODY_TOO_LARGE, logged, and runs again', async () => {
    // 4 MB of one valid page: under the client's default cap (32 MB) it would be read, its one
    // job skipped, and the run would end complete.
    await startWorker('huge-page', { SVC_MAX_LIST_BYTES: '65536' }, 4 * 1024 * 1024);

    await waitFor(() => linesSaying(RUN_FAILED).length >= 2, 'two runs to fail', 20_000);

    const [first] = linesSaying(RUN_FAILED);
    expect(first).toMatchObject({
      level: 40,
      institution: INSTITUTION,
      err: { type: 'SvcApiError', code: 'BODY_TOO_LARGE' },
    });
    expect(String((first?.err as { message: string }).message)).toContain(
      'larger than 65536 bytes, the cap of a list page (maxBodyBytes.list)',
    );
    expect(linesSaying(RUN_DONE)).toEqual([]);
  });
});
