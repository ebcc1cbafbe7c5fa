import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import type { z } from 'zod';
import { isTestEvent } from '../events/test-event';
import type { Logger } from '../logger';

/** What a handler gets besides its payload. */
export interface HandlerContext {
  readonly job: Job;
  /** Aborted when the worker cancels the job (shutdown past its deadline). */
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
}

/** One handler per canonical action, with the schema of the payload it accepts. */
export interface EventHandler<P> {
  /** The canonical (lower-cased) action, which is also the BullMQ job's name. */
  readonly action: string;
  readonly payload: z.ZodType<P>;
  handle(payload: P, context: HandlerContext): Promise<unknown>;
}

/** A handler with its payload type hidden, so handlers of different payloads share one table. */
export interface RegisteredHandler {
  readonly action: string;
  run(data: unknown, context: HandlerContext): Promise<unknown>;
}

/** Turns a handler into a registry entry: the payload is checked before the handler runs. */
export function defineHandler<P>(handler: EventHandler<P>): RegisteredHandler {
  return {
    action: handler.action,
    run: async (data, context) => {
      const parsed = handler.payload.safeParse(data);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue?.path.map(String).join('.') || '(payload)';
        const reason = `invalid ${handler.action} payload: ${field}: ${issue?.message ?? 'invalid'}`;
        context.logger.warn(
          { eventId: eventIdOf(data), action: handler.action, jobId: context.job.id, reason },
          'invalid payload: failed without retry',
        );
        // A payload that is wrong now is wrong on every attempt.
        throw new UnrecoverableError(reason);
      }
      return handler.handle(parsed.data, context);
    },
  };
}

export type Dispatch = (job: Job, signal?: AbortSignal) => Promise<unknown>;

/** What a test event's job completes with (its return value, and the history's outcome). */
export const TEST_EVENT_OUTCOME = 'test event';

/**
 * Routes a queued event to the handler of its action (the job's name, set by the enqueuer). An
 * action with no handler is logged once and completed: the platform may send kinds this worker
 * has no use for, and retrying them would change nothing.
 */
export function createHandlerRegistry({
  handlers,
  logger,
}: {
  handlers: readonly RegisteredHandler[];
  logger: Logger;
}): Dispatch {
  const byAction = new Map<string, RegisteredHandler>();
  for (const handler of handlers) {
    if (byAction.has(handler.action)) throw new RangeError(`two handlers for ${handler.action}`);
    byAction.set(handler.action, handler);
  }
  return async (job, signal) => {
    const action = job.name.toLowerCase();
    const eventId = eventIdOf(job.data);
    if (eventId !== undefined && isTestEvent({ id: eventId })) {
      // send-test-event's event (src/events/test-event.ts): it came through the listener, the
      // signature and the queue; no handler runs (no API call, no job_end download).
      logger.info({ eventId, action, jobId: job.id }, 'test event: completed without work');
      return { outcome: TEST_EVENT_OUTCOME };
    }
    const handler = byAction.get(action);
    if (!handler) {
      logger.debug(
        { eventId: eventIdOf(job.data), action, jobId: job.id },
        'no handler for this action: completed without work',
      );
      return { outcome: 'no handler' };
    }
    return handler.run(job.data, { job, signal, logger });
  };
}

/** The event id for log lines, read defensively: the payload has not been checked yet. */
export function eventIdOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !('id' in data)) return undefined;
  return typeof data.id === 'string' ? data.id : undefined;
}
