import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, WebConfig } from '../../../src/config';
import { eventually } from '../routes/support/route-events';
import { workerUnderTest } from './support/worker-harness';
import type { WorkerUnderTest } from './support/worker-harness';

const INSTANCE_PATH = /^\/svcws\/v1\/conf\/jobs\/[^/]+\/instances\/\d+$/;
const DOWNLOAD_PATH = /\/download$/;

/** A job_end as the platform may send it: the instance's id, name and job only (spec §6.2). */
function jobEnd(id: string, instanceId: string): Record<string, unknown> {
  return {
    id,
    action: 'JOB_END',
    time: '2024-11-06T10:15:30.000Z',
    job_instance: { id: instanceId, name: 'Import MARC records', job_info: { id: 'S7781' } },
  };
}

describe('job_end reruns', () => {
  let sut: WorkerUnderTest;
  afterEach(async () => {
    await sut.close();
  });

  it('reads an instance that is still running again later, then stores its records', async () => {
    sut = await workerUnderTest();
    // Ended by the test once the worker has read it running (a 1.5 s run had ended before a
    // starved worker's first read, at load 9).
    const instanceId = sut.startRun('S7781', 600_000, 6);
    const jobId = await sut.enqueue(jobEnd('evt-running', instanceId), 10, 100);
    sut.startWorker();
    await eventually(
      () => sut.log.lines().some((line) => line.msg === 'job_end: instance not finished'),
      'the worker to read the instance still running',
      60_000,
    );
    sut.finishRun(instanceId);

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    expect(job.attemptsMade).toBeGreaterThan(1);
    expect(job.returnvalue).toMatchObject({ files: [{ records: 6, stored: true }] });
    const dir = join(sut.recordsDir, 'unknown-institution', 'S7781', instanceId);
    expect(await readdir(dir)).toEqual(['TOTAL_RECORDS_IMPORTED.xml']);
    const messages = sut.log.lines().map((line) => line.msg);
    expect(messages).toContain('job_end: instance not finished');
    expect(messages).not.toContain('job_end: nothing to download');
    expect(sut.log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'event failed: will be retried',
        reason: expect.stringMatching(/has not finished \(status (QUEUED|RUNNING)\)/) as unknown,
      }),
    );
  });

  it('fails an instance that never finishes only when its attempts are spent, with that reason', async () => {
    sut = await workerUnderTest();
    const instanceId = sut.startRun('S7781', 600_000, 6);
    const jobId = await sut.enqueue(jobEnd('evt-never', instanceId), 3, 10);
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isFailed()).toBe(true);
    expect(job.attemptsMade).toBe(3);
    expect(job.failedReason).toMatch(
      new RegExp(`^job instance ${instanceId} has not finished \\(status (QUEUED|RUNNING)\\)`),
    );
    expect(sut.proxy.calls().filter((call) => DOWNLOAD_PATH.test(call))).toEqual([]);
  });

  it.each([
    [401, 'a rotated API key'],
    [403, 'a permission being granted'],
    [408, 'a request timeout'],
  ])('retries an HTTP %i (%s) and then stores the records', async (status) => {
    sut = await workerUnderTest();
    const instanceId = await sut.runJob('S7781', 4);
    sut.proxy.fail({ path: INSTANCE_PATH, times: 1, status });
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId), 3);
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    expect(job.attemptsMade).toBe(2);
    expect(job.returnvalue).toMatchObject({ files: [{ records: 4, stored: true }] });
    expect(sut.log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'event failed: will be retried',
        reason: expect.stringContaining(`HTTP ${String(status)}`) as unknown,
      }),
    );
  });

  it('sends one failing call at most (SVC_MAX_RETRIES + 1) × JOB_ATTEMPTS = 10 times with the defaults', async () => {
    // The worker's own defaults: the harness leaves SVC_MAX_RETRIES unset.
    sut = await workerUnderTest();
    const attempts = loadConfig(WebConfig, {
      WEBHOOK_SECRET: 'a-secret-of-16-characters',
    }).JOB_ATTEMPTS;
    const instanceId = await sut.runJob('S7781', 4);
    sut.proxy.fail({ path: DOWNLOAD_PATH, times: 1000, status: 503 });
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId), attempts, 5);
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(sut.config.SVC_MAX_RETRIES).toBe(0);
    expect(attempts).toBe(10);
    expect(await job.isFailed()).toBe(true);
    expect(job.attemptsMade).toBe(10);
    expect(sut.proxy.allCalls().filter((call) => DOWNLOAD_PATH.test(call))).toHaveLength(10);
  });
});
