import { trace } from '@opentelemetry/api';

/**
 * `trace_id` and `span_id` of the span active where a line is logged (the names of the
 * OpenTelemetry log data model), so a log line leads to its trace. Nothing outside a span.
 */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
