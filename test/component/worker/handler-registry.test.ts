import { workerUnderTest } from './support/worker-harness';
import type { WorkerUnderTest } from './support/worker-harness';

describe('handler registry', () => {
  let sut: WorkerUnderTest;
  afterEach(async () => {
    await sut.close();
  });

  it('completes an event whose action has no handler, with one debug line and no API call', async () => {
    sut = await workerUnderTest({ logLevel: 'debug' });
    const jobId = await sut.enqueue({
      id: '7001',
      action: 'LOAN',
      event: { value: 'LOAN_CREATED' },
      time: '2024-11-06T10:15:30.000Z',
      item_loan: { loan_id: '1' },
    });
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    const lines = sut.log.lines().filter((line) => line.eventId === '7001');
    // At info only the run's one end line: a kind that only routes would otherwise log the
    // missing handler for every event.
    expect(lines.filter((line) => Number(line.level) >= 30)).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'event run ended',
        action: 'loan',
        event: 'LOAN_CREATED',
        queueJobId: jobId,
        outcome: 'completed',
        attempts: 1,
        queueWaitMs: expect.any(Number) as number,
      }),
    ]);
    expect(lines.filter((line) => line.msg !== 'event run ended')).toEqual([
      expect.objectContaining({
        level: 20,
        action: 'loan',
        queueJobId: jobId,
        msg: 'no handler for this action: completed without work',
      }),
    ]);
    expect(sut.proxy.allCalls()).toEqual([]);
  });

  it('fails an invalid job_end payload without retries and logs the reason', async () => {
    sut = await workerUnderTest();
    const jobId = await sut.enqueue(
      {
        id: '7002',
        action: 'job_end',
        time: '2024-11-06T10:15:30.000Z',
        job_instance: { name: 'no id' },
      },
      5,
    );
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isFailed()).toBe(true);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/^invalid job_end payload: job_instance\.id: /);
    expect(sut.log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'invalid payload: failed without retry',
        eventId: '7002',
        reason: job.failedReason,
      }),
    );
    expect(sut.proxy.allCalls()).toEqual([]);
  });

  it('refuses an instance id that could leave RECORDS_DIR, before any call', async () => {
    sut = await workerUnderTest();
    const jobId = await sut.enqueue({
      id: '7003',
      action: 'job_end',
      time: '2024-11-06T10:15:30.000Z',
      job_instance: { id: '../../etc', name: 'x' },
    });
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isFailed()).toBe(true);
    expect(sut.proxy.allCalls()).toEqual([]);
  });
});
