import type { CanonicalEvent } from './canonical-event';
import type { EnqueueEvent } from './enqueue-event';
import { normalizeEvent } from './normalize-event';
import { parseJsonEvent } from './parse-json-event';
import { parseXmlEvent } from './parse-xml-event';
import { assertUtf8Charset, bodyFormatOf } from './body-format';
import { RefusedDeliveryError } from './refused-delivery-error';
import { eventKeyProblem } from './event-key-bounds';
import { withTimeout } from '../with-timeout';
import { QueueUnavailableError, isQueueUnavailable } from './queue-unavailable-error';
import { ReplicasNotConfirmedError } from './replicas-not-confirmed-error';

/** One delivery whose signature held (at receipt, or when it was kept as rejected). */
export interface DeliveryInput {
  body: Buffer;
  contentType: string | undefined;
  receivedAt: Date;
  requestId: string;
}

/** Filled in as the steps pass, so a refusal can still say what was read. */
export interface DeliveryProgress {
  format?: string;
  eventId?: string;
  action?: string;
  /** The event's code (`event.value`), once it is an event. */
  eventCode?: string | undefined;
  /** The event's own `institution.value`, once it is an event. */
  eventInstitution?: string | undefined;
}

export interface IntakeOutcome {
  event: CanonicalEvent;
  jobId: string;
  duplicate: boolean;
  /** Kept in the disk spool: the queue gets it once Redis answers (src/events/spool/). */
  spooled?: boolean;
}

export type EventIntake = (
  input: DeliveryInput,
  progress?: DeliveryProgress,
) => Promise<IntakeOutcome>;

export interface EventIntakeOptions {
  enqueue: EnqueueEvent;
  /** An enqueue that has not resolved by then counts as a queue that does not answer. */
  enqueueTimeoutMs?: number;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The intake after the signature held: bytes → format → parse → canonical event → enqueue. Nothing
 * here runs before the signature is checked (src/http/webhook-routes.ts), so unsigned bytes are
 * never parsed. The webhook route and `npm run events -- rejected replay` both run this one
 * function. Throws RefusedDeliveryError (InvalidEventError among them) for a body that cannot
 * become an event, QueueUnavailableError when the queue does not answer, and anything else as it
 * came.
 */
export function createEventIntake({
  enqueue,
  enqueueTimeoutMs = 1000,
}: EventIntakeOptions): EventIntake {
  // Made once, not per delivery: only a delivery that times out calls it.
  const timedOut = (): Error =>
    new QueueUnavailableError(`enqueue did not answer within ${String(enqueueTimeoutMs)} ms`);
  return async (input, progress = {}) => {
    const event = toEvent(input, progress);
    progress.eventId = event.id;
    progress.action = event.action;
    progress.eventCode = event.event?.value;
    progress.eventInstitution = event.institution?.value;
    let result;
    try {
      // A late rejection of an enqueue that timed out is handled by withTimeout.
      result = await withTimeout(enqueue(event), enqueueTimeoutMs, timedOut);
    } catch (error) {
      if (isQueueUnavailable(error)) {
        throw new QueueUnavailableError('the queue did not answer', { cause: error });
      }
      // Queued, but not on REDIS_ACK_REPLICAS replicas in time: a 503 as well, so the sender
      // retries (a 500 here was seen under a Sentinel failover, when WAIT answered before the bound).
      if (error instanceof ReplicasNotConfirmedError) {
        throw new QueueUnavailableError('the replicas did not confirm the write', { cause: error });
      }
      throw error;
    }
    return {
      event,
      jobId: result.jobId,
      duplicate: result.duplicate,
      spooled: result.spooled === true,
    };
  };
}

function toEvent(input: DeliveryInput, progress: DeliveryProgress): CanonicalEvent {
  assertUtf8Charset(input.contentType);
  let text: string;
  try {
    text = strictUtf8.decode(input.body);
  } catch {
    throw new RefusedDeliveryError('invalid_body', 'body is not valid UTF-8');
  }
  const format = bodyFormatOf(input.contentType, text);
  progress.format = format;
  const parsed = format === 'json' ? parseJsonEvent(text) : parseXmlEvent(text);
  const id = readableId(parsed);
  if (id !== undefined) progress.eventId = id;
  return normalizeEvent(parsed, {
    format,
    receivedAt: input.receivedAt.toISOString(),
    requestId: input.requestId,
  });
}

/**
 * The id of a parsed body that may still fail to normalize, when it plainly has one within the
 * bounds of an event key: the log line and the rejected store carry it.
 */
function readableId(parsed: unknown): string | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const id = (parsed as { id?: unknown }).id;
  if (typeof id === 'string' && id !== '')
    return eventKeyProblem(id) === undefined ? id : undefined;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  return undefined;
}
