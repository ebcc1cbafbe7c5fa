import { context, INVALID_SPAN_CONTEXT, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { SpanKind, TelemetryAttributes } from 'bullmq';
import type { Attributes, Exception, Span, Telemetry } from 'bullmq';
import { BullMQOtel, BullMQOTelSpan } from 'bullmq-otel';

/**
 * What BullMQ may say about a job in a span: the queue, the job's name (the action) and id (the
 * event's), attempts, times and the worker. Known to be safe, so kept; every other attribute
 * BullMQ sets — a job's result (`job completed`), its failure reason (`job failed`, the error's
 * message), its options, a deduplication key — is dropped: they can carry the event's data.
 */
const KEPT_ATTRIBUTES: ReadonlySet<string> = new Set([
  TelemetryAttributes.QueueName,
  TelemetryAttributes.QueueOperation,
  TelemetryAttributes.BulkCount,
  TelemetryAttributes.BulkNames,
  TelemetryAttributes.JobName,
  TelemetryAttributes.JobId,
  TelemetryAttributes.JobIds,
  TelemetryAttributes.JobAttemptsMade,
  TelemetryAttributes.JobAttemptFinishedTimestamp,
  TelemetryAttributes.JobProcessedTimestamp,
  TelemetryAttributes.JobState,
  TelemetryAttributes.QueueJobsState,
  TelemetryAttributes.QueueRateLimit,
  TelemetryAttributes.WorkerId,
  TelemetryAttributes.WorkerName,
  TelemetryAttributes.WorkerRateLimit,
  TelemetryAttributes.WorkerStalledJobs,
  TelemetryAttributes.WorkerFailedJobs,
]);

/**
 * BullMQ's `telemetry` option: bullmq-otel (the BullMQ authors' adapter to @opentelemetry/api),
 * which opens the `add` (producer) and `process` (consumer) spans and carries the trace context in
 * each job's options (`opts.telemetry.metadata`), so a job's processing continues the trace of the
 * request that added it, in another process and after any delay or retry. Two changes to it: an
 * internal span with no parent (a worker polling for its next job, the stalled-job check) is not
 * recorded — each would be a trace of its own every few seconds, and none is an event's — and
 * each span keeps only the attributes of KEPT_ATTRIBUTES (an exception: its type or code).
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
        return keepingSafeAttributes(otel.tracer.startSpan(name, options, parent));
      },
    },
  };
}

function keepingSafeAttributes(span: Span<Context>): Span<Context> {
  return {
    setSpanOnContext: (ctx) => span.setSpanOnContext(ctx),
    setAttribute: (key, value) => {
      if (KEPT_ATTRIBUTES.has(key)) span.setAttribute(key, value);
    },
    setAttributes: (attributes) => span.setAttributes(safe(attributes)),
    addEvent: (name, attributes) => span.addEvent(name, safe(attributes ?? {})),
    recordException: (exception, time) => span.recordException(typeOnly(exception), time),
    end: () => span.end(),
  };
}

function safe(attributes: Attributes): Attributes {
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (KEPT_ATTRIBUTES.has(key)) kept[key] = value;
  }
  return kept;
}

/** An exception without its message (BullMQ passes a Redis error's message as the exception). */
function typeOnly(exception: Exception): Exception {
  if (typeof exception === 'string') return { name: 'Error' };
  return exception.code === undefined
    ? { name: exception.name ?? 'Error' }
    : { code: exception.code };
}
