import { readdir } from 'node:fs/promises';
import { workerUnderTest } from './support/worker-harness';
import type { WorkerUnderTest } from './support/worker-harness';

const INSTANCE_PATH = /^\/svcws\/v1\/conf\/jobs\/[^/]+\/instances\/\d+$/;
const DOWNLOAD_PATH = /\/download$/;

describe('job_end failures', () => {
  let sut: WorkerUnderTest;
  afterEach(async () => {
    await sut.close();
  });

  it('retries a 5xx with the job’s backoff and then stores the records', async () => {
    sut = await workerUnderTest();
    const instanceId = await sut.runJob('S7781', 6);
    sut.proxy.fail({ path: DOWNLOAD_PATH, times: 1, status: 503 });
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId), 3);
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    expect(job.attemptsMade).toBe(2);
    expect(job.returnvalue).toMatchObject({ files: [{ records: 6, stored: true }] });
    expect(sut.log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'event failed: will be retried',
        decision: 'retry',
        reason: expect.stringContaining('HTTP 503') as unknown,
      }),
    );
  });

  it('fails a 400 at once, without retries, with the code and its meaning in the failed reason', async () => {
    sut = await workerUnderTest();
    const jobId = await sut.enqueue(
      {
        id: 'evt-400',
        action: 'job_end',
        time: '2024-11-06T10:15:30.000Z',
        institution: { value: '01ABC_INST' },
        event: { value: 'JOB_END' },
        job_instance: { id: '999', name: 'nothing' },
      },
      5,
    );
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isFailed()).toBe(true);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toContain(
      'getJobInstance: HTTP 400, code 402218 (invalid instance id)',
    );
    expect(await sut.queue.getFailedCount()).toBe(1);
    expect(sut.log.lines()).toContainEqual(
      // Every line about an event names it (docs/logs.md): the institution and code as well.
      expect.objectContaining({
        msg: 'event failed: not retried',
        institution: '01ABC_INST',
        action: 'job_end',
        event: 'JOB_END',
        eventId: 'evt-400',
      }),
    );
  });

  it('waits out a 429 without spending an attempt', async () => {
    sut = await workerUnderTest();
    const instanceId = await sut.runJob('S7781', 4);
    sut.proxy.fail({
      path: INSTANCE_PATH,
      times: 2,
      status: 429,
      headers: { 'retry-after': '0' },
    });
    // One attempt only: a 429 that spent it would land the job in the failed set.
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId), 1);
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    expect(sut.proxy.allCalls().filter((call) => INSTANCE_PATH.test(call.slice(4)))).toHaveLength(
      3,
    );
    expect(sut.log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'rate limited by the service: waiting',
        decision: 'rate-limit',
      }),
    );
  });

  it('pauses processing while X-Svc-Api-Remaining is under the floor, and says so', async () => {
    sut = await workerUnderTest({
      sandbox: { SANDBOX_DAILY_BUDGET: 100 },
      worker: { SVC_REMAINING_FLOOR: '1000' },
      budgetPauseMs: 200,
    });
    const first = await sut.runJob('S8120', 3);
    const second = await sut.runJob('S8120', 3);
    const firstJob = await sut.enqueue(await sut.jobEndEvent(first));
    const secondJob = await sut.enqueue(await sut.jobEndEvent(second));
    sut.startWorker();

    const done = [await sut.settled(firstJob), await sut.settled(secondJob)];

    expect(await Promise.all(done.map((job) => job.isCompleted()))).toEqual([true, true]);
    const pauses = sut.log
      .lines()
      .filter((line) => line.msg === 'API budget under the floor: pausing job processing');
    expect(pauses).toHaveLength(1);
    expect(pauses[0]).toMatchObject({ floor: 1000, pauseMs: 200 });
    expect(await readdir(sut.recordsDir)).toEqual([]);
  });
});
