import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import type { z } from 'zod';
import type { CanonicalEvent } from '../events/canonical-event';
import { isTestEvent } from '../events/test-event';
import type { Logger } from '../logger';
import type { EventRun, HandlerContext, PayloadRead, ReadPayload } from './event-run';
import { jobEventFields } from './event-run';

export type { HandlerContext } from './event-run';

/**
 * One handler per canonical action, with the schema of the payload it accepts: an extension of
 * the canonical event's (events/canonical-event.ts), so that one check of the job's data serves
 * the whole run (event-run.ts).
 */
export interface EventHandler<P extends CanonicalEvent> {
  /** The canonical (lower-cased) action, which is also the BullMQ job's name. */
  readonly action: string;
  readonly payload: z.ZodType<P>;
  handle(payload: P, context: HandlerContext): Promise<unknown>;
}

/** A handler with its payload type hidden, so handlers of different payloads share one table. */
export interface RegisteredHandler {
  readonly action: string;
  /** The job's data checked by the handler's schema: its typed call, or why it was refused. */
  read(data: unknown): PayloadRead;
}

/** Turns a handler into a registry entry: the payload is checked once, as the run is read. */
export function defineHandler<P extends CanonicalEvent>(
  handler: EventHandler<P>,
): RegisteredHandler {
  return {
    action: handler.action,
    read: (data) => {
      const parsed = handler.payload.safeParse(data);
      if (parsed.success) {
        const payload = parsed.data;
        return {
          kind: 'handler',
          event: payload,
          handle: (context) => handler.handle(payload, context),
        };
      }
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') || '(payload)';
      return {
        kind: 'invalid',
        reason: `invalid ${handler.action} payload: ${field}: ${issue?.message ?? 'invalid'}`,
      };
    },
  };
}

export type Dispatch = (job: Job, signal?: AbortSignal) => Promise<unknown>;

/** What a test event's job completes with (its return value, and the history's outcome). */
export const TEST_EVENT_OUTCOME = 'test event';

/** The handlers by action: what reads each run's payload, and what runs its handler last. */
export interface HandlerRegistry {
  readonly readPayload: ReadPayload;
  /** The run's handler (the last of its stages, event-run-stages.ts). */
  readonly handle: (run: EventRun) => Promise<unknown>;
}

const NO_HANDLER: PayloadRead = { kind: 'none' };

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
}): HandlerRegistry {
  const byAction = new Map<string, RegisteredHandler>();
  for (const handler of handlers) {
    if (byAction.has(handler.action)) throw new RangeError(`two handlers for ${handler.action}`);
    byAction.set(handler.action, handler);
  }
  return {
    readPayload: (action, data) => byAction.get(action)?.read(data) ?? NO_HANDLER,
    handle: async (run) => handleRun(run, logger),
  };
}

async function handleRun(run: EventRun, logger: Logger): Promise<unknown> {
  const { action, eventId, jobId, job, signal, payload } = run;
  if (eventId !== undefined && isTestEvent({ id: eventId })) {
    // send-test-event's event (src/events/test-event.ts): it came through the listener, the
    // signature and the queue; no handler runs (no API call, no download).
    logger.info(
      { ...jobEventFields(job), queueJobId: jobId },
      'test event: completed without work',
    );
    return { outcome: TEST_EVENT_OUTCOME };
  }
  if (payload.kind === 'none') {
    logger.debug(
      { eventId, action, queueJobId: jobId },
      'no handler for this action: completed without work',
    );
    return { outcome: 'no handler' };
  }
  if (payload.kind === 'invalid') {
    logger.warn(
      { ...jobEventFields(job), queueJobId: jobId, reason: payload.reason },
      'invalid payload: failed without retry',
    );
    // A payload that is wrong now is wrong on every attempt.
    throw new UnrecoverableError(payload.reason);
  }
  return payload.handle({ job, signal, logger });
}
