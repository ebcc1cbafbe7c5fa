import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { CanonicalEvent } from '../../../src/events/canonical-event';
import { normalizeEvent } from '../../../src/events/normalize-event';
import type { EventRun, RunStage } from '../../../src/worker/event-run';
import { EVENT_RUN_ORDER, eventRunDispatch } from '../../../src/worker/event-run-stages';
import type { EventRunStages } from '../../../src/worker/event-run-stages';
import { createHandlerRegistry, defineHandler } from '../../../src/worker/handler-registry';
import { silentLogger } from '../../component/routes/support/route-events';

const LOAN = normalizeEvent({
  id: '7201',
  action: 'LOAN',
  event: { value: 'LOAN_CREATED' },
  time: '2024-11-06T10:15:30.000Z',
  item_loan: { loan_id: '1' },
});

/** A BullMQ job as the stages read it: id, name, data, progress and its update. */
function jobOf(data: unknown, name = 'loan', id: string | undefined = 'evt-7201'): Job {
  const job = {
    id,
    name,
    data,
    progress: 0 as unknown,
    attemptsMade: 0,
    updateProgress: async (progress: unknown) => {
      job.progress = progress;
    },
  };
  return job as unknown as Job;
}

/** A stage that notes its name, and the run it was handed, then goes on. */
function noting(name: string, seen: string[], runs?: EventRun[]): RunStage {
  return async (run, next) => {
    seen.push(name);
    runs?.push(run);
    return next();
  };
}

/** A handler registry whose loan handler counts the checks of its schema and notes its run. */
function countingRegistry(seen: string[]) {
  let checks = 0;
  const payload = CanonicalEvent.transform((event) => {
    checks += 1;
    return event;
  });
  const registry = createHandlerRegistry({
    logger: silentLogger,
    handlers: [
      defineHandler({
        action: 'loan',
        payload: payload as unknown as typeof CanonicalEvent,
        handle: async (event) => {
          seen.push(`handler ${event.id}`);
          return 'done';
        },
      }),
    ],
  });
  return { registry, checks: () => checks };
}

function allStages(seen: string[], runs: EventRun[]): EventRunStages {
  const { registry } = countingRegistry(seen);
  return {
    readPayload: registry.readPayload,
    // Given out of order: the order is the list's, not the caller's.
    expected: noting('expected', seen, runs),
    outcome: noting('outcome', seen, runs),
    steps: [async (event, jobId) => seen.push(`step ${event.id} ${jobId}`)],
    journey: noting('journey', seen, runs),
    guards: new Map([['loan', noting('guard', seen, runs)]]),
    span: noting('span', seen, runs),
    handle: registry.handle,
  };
}

describe("an event's run", () => {
  it('runs its stages in the order the list says, whatever order they are given in', async () => {
    const seen: string[] = [];
    const dispatch = eventRunDispatch(allStages(seen, []));

    expect(await dispatch(jobOf(LOAN))).toBe('done');

    expect(seen).toEqual([
      'span',
      'guard',
      'journey',
      'step 7201 evt-7201',
      'outcome',
      'expected',
      'handler 7201',
    ]);
    expect(EVENT_RUN_ORDER).toEqual([
      'span',
      'guards',
      'journey',
      'steps',
      'outcome',
      'expected',
      'handle',
    ]);
  });

  it('reads the job data once: every stage gets the same run, the handler the same event', async () => {
    const seen: string[] = [];
    const runs: EventRun[] = [];
    const { registry, checks } = countingRegistry(seen);
    const dispatch = eventRunDispatch({
      ...allStages(seen, runs),
      readPayload: registry.readPayload,
      handle: registry.handle,
    });

    await dispatch(jobOf(LOAN));

    expect(checks()).toBe(1);
    expect(runs).toHaveLength(5);
    expect(new Set(runs).size).toBe(1);
    expect(runs[0]?.event).toEqual(LOAN);
    expect(runs[0]?.action).toBe('loan');
  });

  it('runs a guard for its own action only', async () => {
    const seen: string[] = [];
    const { registry } = countingRegistry(seen);
    const dispatch = eventRunDispatch({
      readPayload: registry.readPayload,
      guards: new Map([['job_end', noting('job_end guard', seen)]]),
      handle: registry.handle,
    });

    await dispatch(jobOf(LOAN));

    expect(seen).toEqual(['handler 7201']);
  });

  it('lets a test event pass by the guards, and completes it without its handler', async () => {
    const seen: string[] = [];
    const { registry } = countingRegistry(seen);
    const dispatch = eventRunDispatch({
      readPayload: registry.readPayload,
      guards: new Map([['loan', noting('guard', seen)]]),
      journey: noting('journey', seen),
      handle: registry.handle,
    });

    const result = await dispatch(jobOf({ ...LOAN, id: 'svcws-test-1' }));

    expect(result).toEqual({ outcome: 'test event' });
    expect(seen).toEqual(['journey']);
  });

  it('fails without retry a job whose data is not a canonical event, running no step', async () => {
    const seen: string[] = [];
    const { registry } = countingRegistry(seen);
    const dispatch = eventRunDispatch({
      readPayload: registry.readPayload,
      journey: noting('journey', seen),
      steps: [async () => seen.push('step')],
      handle: registry.handle,
    });

    await expect(dispatch(jobOf({ id: 7201 }))).rejects.toThrow(UnrecoverableError);
    // The journey records events only: it passed the job on unrecorded.
    expect(seen).toEqual(['journey']);
  });

  it('fails without retry a payload its handler refuses, naming the field', async () => {
    const seen: string[] = [];
    const { registry } = countingRegistry(seen);
    const dispatch = eventRunDispatch({
      readPayload: registry.readPayload,
      handle: registry.handle,
    });

    await expect(dispatch(jobOf({ ...LOAN, time: '' }))).rejects.toThrow(
      new UnrecoverableError(
        'invalid loan payload: time: Too small: expected string to have >=1 characters',
      ),
    );
    expect(seen).toEqual([]);
  });

  it('completes an action without a handler, without work', async () => {
    const seen: string[] = [];
    const { registry } = countingRegistry(seen);
    const dispatch = eventRunDispatch({
      readPayload: registry.readPayload,
      handle: registry.handle,
    });

    expect(await dispatch(jobOf({ ...LOAN, action: 'bib' }, 'bib'))).toEqual({
      outcome: 'no handler',
    });
  });

  it('does not run the handler when a step fails', async () => {
    const seen: string[] = [];
    const { registry } = countingRegistry(seen);
    const dispatch = eventRunDispatch({
      readPayload: registry.readPayload,
      steps: [
        async () => {
          throw new Error('route queue unavailable');
        },
      ],
      handle: registry.handle,
    });

    await expect(dispatch(jobOf(LOAN))).rejects.toThrow('route queue unavailable');
    expect(seen).toEqual([]);
  });

  it('does not run the steps again when the handler failed after them and the job runs again', async () => {
    const seen: string[] = [];
    let failures = 1;
    const dispatch = eventRunDispatch({
      readPayload: () => ({ kind: 'none' }),
      steps: [async () => seen.push('step')],
      handle: async () => {
        seen.push('handler');
        if (failures-- > 0) throw new Error('download cut off');
        return 'done';
      },
    });
    const job = jobOf(LOAN);

    await expect(dispatch(job)).rejects.toThrow('download cut off');
    await expect(dispatch(job)).resolves.toBe('done');

    expect(seen).toEqual(['step', 'handler', 'handler']);
  });
});
