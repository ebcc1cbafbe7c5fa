import { isTestEvent } from '../events/test-event';
import type { EventRun, ReadPayload, RunStage } from './event-run';
import { readEventRun } from './event-run';
import type { EventStep } from './event-step';
import { stepsOnce } from './event-step';
import type { Dispatch } from './handler-registry';

/**
 * The stages of one event's run, each optional but the handler. Their order is the one below
 * (EVENT_RUN_ORDER), whatever the order they are given in.
 */
export interface EventRunStages {
  /** Reads the job's data once (the handler registry's readPayload). */
  readonly readPayload: ReadPayload;
  /** 1. The run as a span of the event's trace (span-stage.ts), when tracing is on. */
  readonly span?: RunStage | undefined;
  /** 2. The run's one end line (run-end-stage.ts), inside its span so it carries the trace id. */
  readonly end?: RunStage | undefined;
  /**
   * 3. Per action, its kind room's guard (a handler entry's): it runs only for its own action, and
   * a job it answers itself is neither recorded nor routed. A test event passes by every guard.
   */
  readonly guards?: ReadonlyMap<string, RunStage> | undefined;
  /** 4. The run's take and end in the event's journey (the history). */
  readonly journey?: RunStage | undefined;
  /** 5. Once per job: the event recorded, routing's fan-out (event-step.ts). */
  readonly steps?: readonly EventStep[] | undefined;
  /** 6. What the run came to, for an action whose entry states it (the history's outcome). */
  readonly outcome?: RunStage | undefined;
  /** 7. The expected-events rules the event meets, noted (EXPECTED_EVENTS_FILE). */
  readonly expected?: RunStage | undefined;
  /** 8. The action's handler (the handler registry's). */
  readonly handle: (run: EventRun) => Promise<unknown>;
}

/** The stages in the order they run (the handler last); docs/worker.md tells the same order. */
export const EVENT_RUN_ORDER = [
  'span',
  'end',
  'guards',
  'journey',
  'steps',
  'outcome',
  'expected',
  'handle',
] as const satisfies readonly (keyof EventRunStages)[];

/**
 * The worker's dispatch: each job read once into its run (event-run.ts), then through its stages
 * in EVENT_RUN_ORDER, each handing the same run down.
 */
export function eventRunDispatch(stages: EventRunStages): Dispatch {
  const order: RunStage[] = [
    stages.span,
    stages.end,
    guardsOf(stages.guards),
    stages.journey,
    stepsOnce(stages.steps ?? []),
    stages.outcome,
    stages.expected,
  ].filter((stage): stage is RunStage => stage !== undefined);
  const { handle, readPayload } = stages;
  return async (job, signal) => {
    const run = readEventRun(job, signal, readPayload);
    const from = (index: number): Promise<unknown> => {
      const stage = order[index];
      return stage === undefined ? handle(run) : stage(run, () => from(index + 1));
    };
    return from(0);
  };
}

/** Each action's guard for its own action only; a test event passes by them all. */
function guardsOf(guards: ReadonlyMap<string, RunStage> | undefined): RunStage | undefined {
  if (guards === undefined || guards.size === 0) return undefined;
  return (run, next) => {
    const guard = guards.get(run.action);
    if (guard === undefined) return next();
    if (run.eventId !== undefined && isTestEvent({ id: run.eventId })) return next();
    return guard(run, next);
  };
}
