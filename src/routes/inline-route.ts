import type { Worker } from 'bullmq';
import type { CanonicalEvent } from '../events/canonical-event';
import { attemptDelivery } from './attempt-delivery';
import { deliveryBoundMs } from './delivery-bound';
import { inlineDeliveryInSpan } from './delivery-in-span';
import type { AttemptOutcome, RouteDelivery } from './attempt-delivery';
import type { PausedState } from './paused-state';
import type { AnyRoute } from './routes-file';
import type { TokenBucket } from './token-bucket';

/** The first delivery attempt of a route, made in the event job (docs/routing.md). */
export interface InlineRoute {
  /**
   * Whether the route takes an attempt now: its worker runs here, its queue is not paused, it is
   * within its rate and its concurrency, and `canTakeInline` says yes. Takes the rate's token and
   * a concurrency slot: a `true` must be followed by `attempt`. Answers at once unless the pause's
   * last read is old (PausedState.runningNow).
   */
  ready(): Promise<boolean>;
  /**
   * Attempt 1 of the route's attempts: its outcome, or `late` when the destination has not
   * answered by the inline deadline (the attempt goes on; its outcome comes with `settled`).
   */
  attempt(event: CanonicalEvent): Promise<InlineOutcome>;
}

export type InlineOutcome =
  | AttemptOutcome
  | {
      readonly kind: 'late';
      /** The attempt's outcome once the destination answers or gives up. */
      readonly settled: Promise<AttemptOutcome>;
      /** How much longer the attempt may take at most (delivery-bound.ts). */
      readonly holdMs: number;
    };

export interface InlineRouteOptions {
  readonly delivery: RouteDelivery;
  readonly worker: Worker;
  readonly paused: PausedState;
  /** The route's rate in this process (`ratePerSecond`), shared with its worker. */
  readonly bucket: TokenBucket | undefined;
  readonly deadlineMs: number;
  /** A further say (a circuit breaker): `false` queues the delivery as a route job. */
  readonly canTakeInline?: (route: AnyRoute) => boolean;
  /** Tracing is on: each attempt is a span `deliver <route>` of the event's run. */
  readonly traced?: boolean;
}

export function createInlineRoute(options: InlineRouteOptions): InlineRoute {
  const { delivery, worker, paused, bucket, deadlineMs } = options;
  const { route } = delivery;
  /** Inline attempts whose destination has not answered yet (the deadline may have passed). */
  let inFlight = 0;
  const settled = (): void => {
    inFlight -= 1;
  };
  return {
    ready: async () => {
      const free = (): boolean =>
        worker.isRunning() && !worker.isPaused() && inFlight < route.concurrency;
      // A pause answered "paused" holds: only a fresh read that said running lets it go. A read
      // that is only late is made again: queueing the delivery instead costs more of what is
      // scarce (a route job's commands) just when the process or Redis is busy.
      if (!free() || !(await paused.runningNow()) || !free()) return false;
      // Last: a token taken is a delivery made.
      if (!(options.canTakeInline?.(route) ?? true) || !(bucket?.tryTake() ?? true)) return false;
      // The slot is taken here, in the same step as the last check: another event's `ready`
      // may run before the caller's `attempt`, and must count this one.
      inFlight += 1;
      return true;
    },
    attempt: (event) => {
      const attempting = attemptDelivery(delivery, event, {
        number: 1,
        of: route.retry.attempts,
        onSettled: settled,
        ...(options.traced === true
          ? { inSpan: (fields, deliver) => inlineDeliveryInSpan(event.action, fields, deliver) }
          : {}),
      });
      return byDeadline(attempting, deadlineMs, deliveryBoundMs(route) - deadlineMs);
    },
  };
}

/** The attempt's outcome if it comes within `deadlineMs`; `late` with the attempt itself if not. */
function byDeadline(
  attempting: Promise<AttemptOutcome>,
  deadlineMs: number,
  holdMs: number,
): Promise<InlineOutcome> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      resolve({ kind: 'late', settled: attempting, holdMs: Math.max(0, holdMs) });
    }, deadlineMs);
    attempting.then(
      (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
