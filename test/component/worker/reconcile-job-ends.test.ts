import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { createSvcClient } from '@svcws/client';
import { recordsPath } from '../../../src/worker/job-end/records-path';
import { jobEndSeenKey } from '../../../src/worker/job-end/job-end-seen';
import { reconcileJobEnds } from '../../../src/worker/job-end/reconcile-job-ends';
import type { ReconcileWindow } from '../../../src/worker/job-end/reconcile-job-ends';
import { recoveredEventId } from '../../../src/worker/job-end/recovered-job-end';
import { reconcileTargetOf } from '../../../src/worker/job-end/start-reconciliation';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { TEST_REDIS_URL, obliterateQueue } from '../../helpers/redis';
import { workerUnderTest } from './support/worker-harness';
import type { HarnessOptions, WorkerUnderTest } from './support/worker-harness';

const INSTITUTION = '01SVC_INST';
const INSTANCE_LIST = /^GET \/svcws\/v1\/conf\/jobs\/[^/]+\/instances$/;

function countOf(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** The sandbox (no webhook profile: it sends nothing), real Redis, the real worker's parts. */
describe('job_end reconciliation: found through the jobs API when the platform never sent it', () => {
  let sut: WorkerUnderTest;
  let redis: Redis;
  const closers: (() => Promise<void>)[] = [];

  async function setUp(options: HarnessOptions = {}): Promise<void> {
    sut = await workerUnderTest({
      ...options,
      worker: { INSTITUTION_CODE: INSTITUTION, RECONCILE_INTERVAL_SECONDS: '0', ...options.worker },
    });
    redis = new Redis(TEST_REDIS_URL);
  }

  /** One reconciliation run as the schedule makes it, over the harness's queue and the sandbox. */
  async function reconcileNow(window: Partial<ReconcileWindow> = {}) {
    const client = createSvcClient({
      baseUrl: sut.proxy.url,
      apiKey: 'sandbox-key',
      ratePerSecond: 1000,
      maxRetries: 0,
      remainingFloor: sut.config.SVC_REMAINING_FLOOR,
    });
    const { target, close } = reconcileTargetOf(redis, {
      institution: INSTITUTION,
      queueName: sut.queueName,
      config: sut.config,
      client,
      logger: sut.log.logger,
    });
    closers.push(close);
    const now = new Date();
    return reconcileJobEnds(target, {
      since: new Date(now.getTime() - 3_600_000),
      until: now,
      dryRun: false,
      runId: 'reconcile-test',
      ...window,
    });
  }

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    const keys = await redis.keys(`${sut.queueName}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await obliterateQueue(`${sut.queueName}-reconcile`);
    redis.disconnect();
    await sut.close();
  });

  it('processes a job_end never sent within one interval of the scheduled run: records on disk, marked recovered', async () => {
    await setUp({ worker: { RECONCILE_INTERVAL_SECONDS: '1' } });
    const instanceId = await sut.runJob('S7781', 7);
    sut.startWorker();

    const job = await sut.settled(jobIdForEvent(recoveredEventId(instanceId)));

    expect(await job.isCompleted()).toBe(true);
    expect(job.data).toMatchObject({
      action: 'job_end',
      institution: { value: INSTITUTION },
      job_instance: { id: instanceId, status: { value: 'COMPLETED_SUCCESS' } },
      meta: { recovered: true, format: 'json' },
    });
    const file = recordsPath(sut.recordsDir, {
      institution: INSTITUTION,
      jobId: 'S7781',
      instanceId,
      lineType: 'TOTAL_RECORDS_IMPORTED',
      format: 'XML',
    });
    expect(countOf(await readFile(file, 'utf8'), '<record>')).toBe(7);
    // Queued by the first scheduled run (the first run's line counts it), which goes on listing
    // the other jobs' instances after queueing this one.
    let done = sut.log.lines().find((line) => line.msg === 'reconciliation run done');
    while (done === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      done = sut.log.lines().find((line) => line.msg === 'reconciliation run done');
    }
    expect(done).toMatchObject({ complete: true });
    expect(done?.recovered).toBeGreaterThanOrEqual(1);
  });

  it('runs once per interval for the fleet, whatever the number of workers', async () => {
    await setUp({ worker: { RECONCILE_INTERVAL_SECONDS: '1' } });
    sut.startWorker();
    sut.startWorker();
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    const elapsedSeconds = (Date.now() - started) / 1000;

    const runs = sut.log.lines().filter((line) => line.msg === 'reconciliation run done').length;

    // Two workers each taking every slot would make about twice as many.
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(Math.ceil(elapsedSeconds) + 1);
  });

  it('does not process the late webhook of a recovered instance again', async () => {
    await setUp();
    const instanceId = await sut.runJob('S7781', 5);
    const report = await reconcileNow();
    expect(report.recovered.map((one) => one.instanceId)).toContain(instanceId);
    sut.startWorker();
    const recovered = await sut.settled(jobIdForEvent(recoveredEventId(instanceId)));
    expect(await recovered.isCompleted()).toBe(true);

    const lateJobId = await sut.enqueue(await sut.jobEndEvent(instanceId));
    const late = await sut.settled(lateJobId);

    expect(late.returnvalue).toEqual({ outcome: 'duplicate', instanceId });
    const instanceCalls = sut.proxy
      .calls()
      .filter((call) => call.endsWith(`/instances/${instanceId}`) || call.endsWith('/download'));
    expect(instanceCalls).toEqual([
      `GET /svcws/v1/conf/jobs/S7781/instances/${instanceId}`,
      `GET /svcws/v1/conf/jobs/S7781/instances/${instanceId}/download`,
    ]);
  });

  it('does not recover an instance whose webhook was processed', async () => {
    await setUp();
    const instanceId = await sut.runJob('S7781', 5);
    const webhookJobId = await sut.enqueue(await sut.jobEndEvent(instanceId));
    sut.startWorker();
    expect(await (await sut.settled(webhookJobId)).isCompleted()).toBe(true);

    const report = await reconcileNow();

    expect(report.complete).toBe(true);
    expect(report.recovered.map((one) => one.instanceId)).not.toContain(instanceId);
    expect(await sut.queue.getJob(jobIdForEvent(recoveredEventId(instanceId)))).toBeUndefined();
  });

  it('makes one call per page of the job list and of each selected job’s instances, none per instance', async () => {
    await setUp();
    for (let n = 0; n < 3; n += 1) await sut.runJob('S7781', 2);

    const report = await reconcileNow({ dryRun: true });

    const calls = sut.proxy.calls().map((call) => call.split('?')[0] ?? call);
    const instancePages = calls.filter((call) => INSTANCE_LIST.test(call)).length;
    expect(calls.filter((call) => call === 'GET /svcws/v1/conf/jobs')).toHaveLength(1);
    expect(instancePages).toBe(report.jobs.length);
    expect(calls).toHaveLength(1 + instancePages);
    expect(report.apiCalls).toBe(calls.length);
    expect(report.apiCalls).toBeLessThanOrEqual(report.jobs.length + instancePages);
    expect(report.jobs).toContain('S7781');
  });

  it('stops at the budget floor, incomplete, with no call made under it', async () => {
    // The floor is 1000: the job list leaves 1001, the first instance page 1000, the second 999.
    // The whole budget above the floor may be spent: the floor, not the run's share, stops it.
    await setUp({
      sandbox: { SANDBOX_DAILY_BUDGET: 1002 },
      worker: { RECONCILE_BUDGET_PERCENT: '100' },
    });
    await sut.runJob('S7781', 2);

    const report = await reconcileNow();

    expect(report).toMatchObject({ complete: false, stoppedBecause: 'budget floor', apiCalls: 3 });
    expect(sut.proxy.calls()).toHaveLength(3);
    expect(report.jobs.length).toBeGreaterThan(2);
    expect(
      sut.log.lines().some((line) => line.msg === 'reconciliation stopped at the API budget floor'),
    ).toBe(true);
  });

  it('skips a RECONCILE_JOB_IDS entry the service refuses, and still completes', async () => {
    await setUp({ worker: { RECONCILE_JOB_IDS: 'S9999,S7781' } });
    const instanceId = await sut.runJob('S7781', 2);

    const report = await reconcileNow({ dryRun: true });

    expect(report.complete).toBe(true);
    expect(report.jobs).toContain('S9999');
    expect(report.recovered.map((one) => one.instanceId)).toContain(instanceId);
    const skipped = sut.log.lines().find((line) => line.platformJobId === 'S9999');
    expect(skipped).toMatchObject({ code: '402216' });
  });

  it('changes nothing in a dry run: reported, not queued, not claimed', async () => {
    await setUp();
    const instanceId = await sut.runJob('S7781', 2);

    const report = await reconcileNow({ dryRun: true });

    expect(report.recovered).toContainEqual({
      jobId: 'S7781',
      instanceId,
      eventId: recoveredEventId(instanceId),
    });
    expect(await sut.queue.getJob(jobIdForEvent(recoveredEventId(instanceId)))).toBeUndefined();
    expect(await redis.exists(jobEndSeenKey(sut.queueName, instanceId))).toBe(0);
    expect(await sut.queue.count()).toBe(0);
  });
});
