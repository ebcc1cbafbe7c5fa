import { trace } from '@opentelemetry/api';
import { eventAttributes } from '../tracing/event-attributes';
import { inSpan } from '../tracing/in-span';
import type { EnqueueEvent } from './enqueue-event';

/**
 * The enqueue as a span `enqueue <action>` under the POST's span, which gets the event's ids too
 * (docs/operations.md "Tracing"); BullMQ's `add` span is its child, and the job carries the
 * trace on to the worker. Only composed when tracing is on (src/processes/listener-process.ts).
 */
export function enqueueInSpan(
  enqueue: EnqueueEvent,
  institution: string | undefined,
): EnqueueEvent {
  return (event) => {
    const attributes = eventAttributes({
      eventId: event.id,
      action: event.action,
      institution: institution ?? event.institution?.value,
    });
    trace.getActiveSpan()?.setAttributes(attributes);
    return inSpan(`enqueue ${event.action}`, { attributes }, async (span) => {
      const result = await enqueue(event);
      span.setAttribute('svcws.duplicate', result.duplicate);
      return result;
    });
  };
}
