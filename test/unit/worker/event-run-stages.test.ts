import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { CanonicalEvent } from '../../../src/events/canonical-event';
import { normalizeEvent } from '../../../src/events/normalize-event';
import type { EventRun, RunStage } from '../../../src/worker/event-run';
import { EVENT_RUN_ORDER, eventRunDispatch } from '../../../src/worker/event-run-stages';
import type { EventRunStages } from '../../../src/worker/event-run-stages';
import { createHandlerRegistry, defineHandler } from '../../../src/worker/handler-registry';
import { silentLogger } from '../../component/routes/support/route-events';
import { runEndStage } from '../../../src/worker/run-end-stage';
import { captureLogger } from '../../helpers/capture-logger';
import type { CapturedLogger } from '../../helpers/capture-logger';

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
    opts: { attempts: 3 },
    timestamp: 1_000,
    processedOn: 1_250,
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
    steps: [
      async (event, jobId) => {
        seen.push(`step ${event.id} ${jobId}`);
        return { routes: ['indexer'] };
      },
    ],
    journey: noting('journey', seen, runs),
    guards: new Map([['loan', noting('guard', seen, runs)]]),
    span: noting('span', seen, runs),
    end: noting('end', seen, runs),
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
      'end',
      'guard',
      'journey',
      'step 7201 evt-7201',
      'outcome',
      'expected',
      'handler 7201',
    ]);
    expect(EVENT_RUN_ORDER).toEqual([
      'span',
      'end',
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
    expect(runs).toHaveLength(6);
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
      steps: [
        async () => {
          seen.push('step');
          return undefined;
        },
      ],
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
      steps: [
        async () => {
          seen.push('step');
          return undefined;
        },
      ],
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

describe("a run's end line", () => {
  const endOf = (log: CapturedLogger) =>
    log.lines().filter((line) => line.msg === 'event run ended');

  it('says once, at info, how a run ended: its event, outcome, times, routes and attempt', async () => {
    const log = captureLogger();
    const { registry } = countingRegistry([]);
    const dispatch = eventRunDispatch({
      ...allStages([], []),
      end: runEndStage({ logger: log.logger }),
      readPayload: registry.readPayload,
      handle: registry.handle,
    });

    await dispatch(jobOf({ ...LOAN, institution: { value: '01SVC_INST' } }));

    expect(endOf(log)).toEqual([
      expect.objectContaining({
        level: 30,
        institution: '01SVC_INST',
        action: 'loan',
        event: 'LOAN_CREATED',
        eventId: '7201',
        queueJobId: 'evt-7201',
        outcome: 'completed',
        durationMs: expect.any(Number) as number,
        queueWaitMs: 250,
        routes: ['indexer'],
        attempts: 1,
        maxAttempts: 3,
      }),
    ]);
  });

  it('says a failed run with the journey’s words, and the member’s code when it has one', async () => {
    const log = captureLogger();
    const dispatch = eventRunDispatch({
      readPayload: () => ({ kind: 'none' }),
      end: runEndStage({ logger: log.logger, institution: '01MEMBER' }),
      handle: async () => {
        throw new Error('download cut off');
      },
    });

    await expect(dispatch(jobOf(LOAN))).rejects.toThrow('download cut off');
    // Its last attempt: the run fails for good.
    const last = Object.assign(jobOf(LOAN), { attemptsMade: 2 });
    await expect(dispatch(last)).rejects.toThrow('download cut off');

    const ends = endOf(log);
    expect(ends.map((line) => [line.outcome, line.attempts, line.institution, line.level])).toEqual(
      [
        ['retrying', 1, '01MEMBER', 30],
        ['failed', 3, '01MEMBER', 30],
      ],
    );
    // No step ran: no routes to name.
    expect(ends[0]).not.toHaveProperty('routes');
  });
});
