import { z } from 'zod';
import { CanonicalEvent } from '../../../src/events/canonical-event';
import { defineHandler } from '../../../src/worker/handler-registry';
import type { HandlerEntry } from '../../../src/worker/handler-entry';
import { workerUnderTest } from './support/worker-harness';
import type { WorkerUnderTest } from './support/worker-harness';

const LOAN = {
  id: '7101',
  action: 'LOAN',
  event: { value: 'LOAN_CREATED' },
  time: '2024-11-06T10:15:30.000Z',
  item_loan: { loan_id: '1' },
};

/**
 * A kind room of the test's own, registered as every kind room is: one entry in the handler list.
 * Its handler makes one call with the client the assembly built, so the call shows it got the
 * queue's client and configuration.
 */
const loanEntry: HandlerEntry = {
  action: 'loan',
  create: ({ config, client }) =>
    defineHandler({
      action: 'loan',
      payload: CanonicalEvent,
      handle: async (payload) => {
        const answer = await client.request('GET /conf/jobs/{job_id}', {
          path: { job_id: 'S7781' },
        });
        const job = z.object({ id: z.string() }).parse(answer);
        return { id: payload.id, queue: config.QUEUE_NAME, job: job.id };
      },
    }),
};

describe('handler list', () => {
  let sut: WorkerUnderTest;
  afterEach(async () => {
    await sut.close();
  });

  it('refuses to start with an entry that builds a handler of another action', async () => {
    sut = await workerUnderTest({ handlers: [{ action: 'item', create: loanEntry.create }] });

    expect(() => sut.startWorker()).toThrow('handler entry item built a loan handler');
  });

  it('runs the handler of an entry in the list, built with the queue configuration and client', async () => {
    sut = await workerUnderTest({ handlers: [loanEntry] });
    const jobId = await sut.enqueue(LOAN);
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    expect(job.returnvalue).toEqual({ id: '7101', queue: sut.queueName, job: 'S7781' });
    expect(sut.proxy.allCalls()).toEqual(['GET /svcws/v1/conf/jobs/S7781']);
  });

  it('completes without work an action whose entry is not in the list (job_end left out)', async () => {
    sut = await workerUnderTest({ handlers: [loanEntry] });
    const jobId = await sut.enqueue({
      id: '7102',
      action: 'job_end',
      time: '2024-11-06T10:15:30.000Z',
      job_instance: { id: '1' },
    });
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    expect(job.returnvalue).toEqual({ outcome: 'no handler' });
    expect(sut.proxy.allCalls()).toEqual([]);
  });

  it("runs an entry's start-up work once at the worker's start, with the worker's configuration", async () => {
    const started: string[] = [];
    const withStartUp: HandlerEntry = {
      ...loanEntry,
      startUp: async ({ config }) => {
        started.push(config.QUEUE_NAME);
        await Promise.resolve();
      },
    };
    sut = await workerUnderTest({ handlers: [withStartUp] });

    await sut.startWorker().startedUp;

    expect(started).toEqual([sut.queueName]);
  });
});
