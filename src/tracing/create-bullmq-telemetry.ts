import { context, INVALID_SPAN_CONTEXT, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { SpanKind } from 'bullmq';
import type { Telemetry } from 'bullmq';
import { BullMQOtel, BullMQOTelSpan } from 'bullmq-otel';

/**
 * BullMQ's `telemetry` option: bullmq-otel (the BullMQ authors' adapter to @opentelemetry/api),
 * which opens the `add` (producer) and `process` (consumer) spans and carries the trace context in
 * each job's options (`opts.telemetry.metadata`), so a job's processing continues the trace of the
 * request that added it, in another process and after any delay or retry. One change to it: an
 * internal span with no parent (a worker polling for its next job, the stalled-job check) is not
 * recorded — each would be a trace of its own every few seconds, and none is an event's.
 */
export function createBullmqTelemetry(serviceName: string): Telemetry<Context> {
  const otel = new BullMQOtel({ tracerName: serviceName });
  return {
    contextManager: otel.contextManager,
    tracer: {
      startSpan(name, options, parent) {
        const within = parent ?? context.active();
        if (options?.kind === SpanKind.INTERNAL && trace.getSpan(within) === undefined) {
          return new BullMQOTelSpan(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
        }
        return otel.tracer.startSpan(name, options, parent);
      },
    },
  };
}
