import { Redis } from 'ioredis';
import { createSvcClient } from '@svcws/client';
import { bodyCapsOf } from '../../../src/body-caps-of';
import { WorkerConfig } from '../../../src/config';
import { jobEndSeenKey } from '../../../src/worker/job-end/job-end-seen';
import { reconcileJobEnds } from '../../../src/worker/job-end/reconcile-job-ends';
import type { ReconcileWindow } from '../../../src/worker/job-end/reconcile-job-ends';
import { reconcileTargetOf } from '../../../src/worker/job-end/start-reconciliation';
import { captureLogger } from '../../helpers/capture-logger';
import type { CapturedLogger } from '../../helpers/capture-logger';
import {
  HOSTILE_API_KEY,
  startHostileJobsApi,
  workerEnvAgainst,
} from '../../helpers/hostile-jobs-api';
import type { HostileJobsApi, HostileMode } from '../../helpers/hostile-jobs-api';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

jest.setTimeout(30_000);

/** A hostile stand-in of the jobs API (test/helpers/hostile-jobs-api.ts), real Redis, the real run. */
describe('reconciliation within bounds, against a platform whose lists misbehave', () => {
  let api: HostileJobsApi;
  let redis: Redis;
  let queueName: string;
  let log: CapturedLogger;
  const cuts: string[] = [];
  const closers: (() => Promise<void>)[] = [];

  beforeEach(() => {
    redis = new Redis(TEST_REDIS_URL);
    queueName = uniqueQueueName('recon-bounds');
    log = captureLogger();
    cuts.splice(0);
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await api.close();
    await obliterateQueue(queueName);
    redis.disconnect();
  });

  async function runAgainst(
    mode: HostileMode,
    env: Record<string, string> = {},
    window: Partial<ReconcileWindow> = {},
    hugeBytes?: number,
  ) {
    api = await startHostileJobsApi(mode, { remaining: 1_000_000, hugeBytes });
    const config = WorkerConfig.parse({ ...workerEnvAgainst(api, queueName), ...env });
    const client = createSvcClient({
      baseUrl: api.url,
      apiKey: HOSTILE_API_KEY,
      ratePerSecond: 1000,
      maxRetries: 0,
      // SVC_MAX_LIST_BYTES and SVC_MAX_ANSWER_BYTES, as the worker's client takes them.
      maxBodyBytes: bodyCapsOf(config),
    });
    const { target, close } = reconcileTargetOf(redis, {
      institution: 'INST',
      queueName,
      config,
      client,
      logger: log.logger,
    });
    closers.push(close);
    const now = new Date();
    return reconcileJobEnds(
      { ...target, onCut: (_institution, cap) => cuts.push(cap) },
      {
        since: new Date(now.getTime() - 3_600_000),
        until: now,
        dryRun: false,
        runId: 'r',
        ...window,
      },
    );
  }

  const cutLines = () =>
    log
      .lines()
      .filter(
        (line) => line.msg === 'reconciliation cut off by a cap: the next run covers the rest',
      );

  it('reads at most RECONCILE_MAX_PAGES pages of a job list that never ends, and says so', async () => {
    const report = await runAgainst('endless-jobs', { RECONCILE_MAX_PAGES: '4' });

    // 4 pages of the job list, then one instance page per selected job (400 of them).
    expect(api.calls().filter((call) => call.startsWith('/svcws/v1/conf/jobs?'))).toHaveLength(4);
    expect(report.complete).toBe(false);
    expect(report.cuts).toContainEqual({ cap: 'pages', list: 'jobs' });
    expect(cuts).toContain('pages');
    expect(cutLines()[0]).toMatchObject({
      cap: 'pages',
      list: 'jobs',
      limit: 4,
      institution: 'INST',
    });
  });

  it('stops a list at a page that repeats an earlier one', async () => {
    const report = await runAgainst('repeated-jobs', { RECONCILE_MAX_PAGES: '1000' });

    expect(api.calls().filter((call) => call.startsWith('/svcws/v1/conf/jobs?'))).toHaveLength(2);
    expect(report.cuts).toContainEqual({ cap: 'repeated_page', list: 'jobs' });
    expect(report.jobs).toHaveLength(100);
    expect(cuts).toContain('repeated_page');
  });

  it('queues at most RECONCILE_MAX_RECOVERED job_ends when every page brings new instances', async () => {
    const report = await runAgainst('endless-instances', {
      RECONCILE_MAX_RECOVERED: '150',
      RECONCILE_MAX_PAGES: '1000',
    });

    expect(report.recovered).toHaveLength(150);
    expect(report).toMatchObject({ complete: false, stoppedBecause: 'recovered cap' });
    expect(await redis.keys(`${queueName}:job-end-seen:*`)).toHaveLength(150);
    // The run stops at the cap: the page it was on, and no page after it.
    expect(api.calls().filter((call) => call.includes('/instances?'))).toHaveLength(2);
    expect(cuts).toEqual(['recovered']);
  });

  it('spends at most RECONCILE_BUDGET_PERCENT of the budget left above the floor', async () => {
    // After the first call 999,999 are left, 990,000 the floor: 1% of the 10,000 between is 100.
    const report = await runAgainst('endless-jobs', {
      RECONCILE_MAX_PAGES: '10000',
      RECONCILE_BUDGET_PERCENT: '1',
      SVC_REMAINING_FLOOR: '990000',
    });

    // The first call is made before any budget is known; the share is fixed at the second.
    expect(api.calls()).toHaveLength(101);
    expect(report).toMatchObject({ complete: false, stoppedBecause: 'budget share' });
    expect(report.apiCalls).toBe(api.calls().length);
    expect(cuts).toEqual(['budget_share']);
  });

  it('ends a run at RECONCILE_MAX_RUN_SECONDS, mid-walk', async () => {
    const started = Date.now();
    const report = await runAgainst(
      'endless-jobs',
      { RECONCILE_MAX_PAGES: '10000', RECONCILE_BUDGET_PERCENT: '100' },
      { deadlineAt: Date.now() + 500 },
    );

    expect(report).toMatchObject({ complete: false, stoppedBecause: 'run time' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(cuts).toEqual(['run_time']);
  });

  it('ends a run at once on the shutdown signal, sending nothing after it', async () => {
    const shutdown = new AbortController();
    const running = runAgainst(
      'endless-jobs',
      { RECONCILE_MAX_PAGES: '10000', RECONCILE_BUDGET_PERCENT: '100' },
      { signal: shutdown.signal },
    );
    const callsSoFar = () => (api as HostileJobsApi | undefined)?.calls().length ?? 0;
    while (callsSoFar() < 3) await new Promise((resolve) => setTimeout(resolve, 10));

    shutdown.abort();
    const atAbort = callsSoFar();
    const report = await running;

    expect(report).toMatchObject({ complete: false, stoppedBecause: 'shutdown' });
    // The call in flight at most: nothing is sent after the signal.
    expect(callsSoFar()).toBeLessThanOrEqual(atAbort + 1);
    expect(cuts).toEqual([]);
    expect(log.lines().map((line) => line.msg)).toContain(
      'reconciliation run stopped: the worker is shutting down',
    );
  });

  it('ends a run at a job list page past SVC_MAX_LIST_BYTES with BODY_TOO_LARGE, after one call', async () => {
    // 4 MB of one valid page: read whole under the client's default cap (32 MB), it would be
    // parsed and its one job skipped, and the run would end complete.
    const running = runAgainst('huge-page', { SVC_MAX_LIST_BYTES: '65536' }, {}, 4 * 1024 * 1024);

    await expect(running).rejects.toMatchObject({
      name: 'SvcApiError',
      code: 'BODY_TOO_LARGE',
      limitBytes: 65_536,
      retryable: false,
    });
    expect(api.calls()).toHaveLength(1);
    expect(cuts).toEqual([]);
  });

  it('skips ids that are not platform ids (`.`, `..`, `/`, empty, 500 characters) with one line, and goes on', async () => {
    const report = await runAgainst('dot-ids', { RECONCILE_JOB_IDS: '..,S1' });

    expect(report.complete).toBe(true);
    expect(report.jobs).toEqual(['S1']);
    expect(report.recovered.map((one) => one.instanceId)).toEqual(['ok-1']);
    // Six job ids of the list, one of RECONCILE_JOB_IDS, one instance id.
    expect(report.skippedIds).toBe(8);
    expect(api.calls().filter((call) => call.includes('/instances'))).toEqual([
      expect.stringMatching(/^\/svcws\/v1\/conf\/jobs\/S1\/instances\?/) as unknown,
    ]);
    expect(await redis.exists(jobEndSeenKey(queueName, '..'))).toBe(0);
    const skipped = log
      .lines()
      .filter(
        (line) => line.msg === 'reconciliation: listed ids that are not platform ids skipped',
      );
    expect(skipped).toEqual([expect.objectContaining({ count: 8, institution: 'INST' })]);
  });
});
