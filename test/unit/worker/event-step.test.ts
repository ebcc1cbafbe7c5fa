import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { withEventSteps } from '../../../src/worker/event-step';
import type { Dispatch } from '../../../src/worker/handler-registry';

const EVENT = normalizeEvent({
  id: '7201',
  action: 'LOAN',
  event: { value: 'LOAN_CREATED' },
  time: '2024-11-06T10:15:30.000Z',
  item_loan: { loan_id: '1' },
});

/** withEventSteps reads only a job's id and data; the rest of a BullMQ job plays no part. */
function jobOf(data: unknown, id: string | undefined = 'evt-7201'): Job {
  return { id, name: 'loan', data } as unknown as Job;
}

describe('event steps before the handler', () => {
  it('runs every step in order with the event and job id, then the handler', async () => {
    const seen: string[] = [];
    const dispatch: Dispatch = async () => {
      seen.push('handler');
      return 'done';
    };
    const run = withEventSteps(dispatch, [
      async (event, jobId) => seen.push(`first ${event.id} ${jobId}`),
      async (event, jobId) => seen.push(`second ${event.id} ${jobId}`),
    ]);

    const result = await run(jobOf(EVENT));

    expect(result).toBe('done');
    expect(seen).toEqual(['first 7201 evt-7201', 'second 7201 evt-7201', 'handler']);
  });

  it('fails without retry a job whose data is not a canonical event, running nothing', async () => {
    const seen: string[] = [];
    const run = withEventSteps(async () => seen.push('handler'), [async () => seen.push('step')]);

    await expect(run(jobOf({ id: 7201 }))).rejects.toThrow(UnrecoverableError);
    expect(seen).toEqual([]);
  });

  it('does not run the handler when a step fails', async () => {
    const seen: string[] = [];
    const run = withEventSteps(
      async () => seen.push('handler'),
      [
        async () => {
          throw new Error('route queue unavailable');
        },
      ],
    );

    await expect(run(jobOf(EVENT))).rejects.toThrow('route queue unavailable');
    expect(seen).toEqual([]);
  });

  it('hands the job to the handler untouched when there are no steps', async () => {
    const dispatch: Dispatch = async (job) => job.data;
    const run = withEventSteps(dispatch, []);

    expect(await run(jobOf('not an event'))).toBe('not an event');
  });

  it('does not run the steps again when the handler failed after them and the job runs again', async () => {
    const seen: string[] = [];
    let failures = 1;
    const run = withEventSteps(async () => {
      seen.push('handler');
      if (failures-- > 0) throw new Error('download cut off');
      return 'done';
    }, [async () => seen.push('step')]);
    // The progress a BullMQ job keeps between its runs.
    const job = {
      id: 'evt-7201',
      name: 'loan',
      data: EVENT,
      progress: 0 as unknown,
      updateProgress: async (progress: unknown) => {
        job.progress = progress;
      },
    };

    await expect(run(job as unknown as Job)).rejects.toThrow('download cut off');
    await expect(run(job as unknown as Job)).resolves.toBe('done');

    expect(seen).toEqual(['step', 'handler', 'handler']);
  });
});
