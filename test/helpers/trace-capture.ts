import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing } from '../../src/tracing/start-tracing';
import type { Tracing } from '../../src/tracing/start-tracing';

export interface TraceCapture {
  readonly tracing: Tracing;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The ended spans of one trace. */
  trace(traceId: string): ReadableSpan[];
  /**
   * Whether every span of the trace whose name is given has ended, and so has every parent of
   * every ended span (a parent ends after its children: BullMQ's `process` after the run).
   */
  complete(traceId: string, names: readonly string[]): boolean;
  /** The ended span of that name; throws when there is none or more than one. */
  one(name: string, traceId?: string): ReadableSpan;
  close(): Promise<void>;
}

/**
 * Tracing on as bin/ starts it, with spans kept in memory (the SDK's InMemorySpanExporter)
 * instead of sent over OTLP. One per test file: the provider is registered globally.
 */
export function captureTraces(serviceName = 'svcws-test'): TraceCapture {
  const exporter = new InMemorySpanExporter();
  const tracing = startTracing({ env: {}, serviceName, exporter });
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const trace = (traceId: string): ReadableSpan[] =>
    spans().filter((span) => span.spanContext().traceId === traceId);
  return {
    tracing,
    spans,
    trace,
    complete: (traceId, wanted) => {
      const ended = trace(traceId);
      const ids = new Set(ended.map((span) => span.spanContext().spanId));
      const roots = ended.filter((span) => {
        const parent = span.parentSpanContext;
        return parent === undefined || parent.traceId !== traceId || !ids.has(parent.spanId);
      });
      return roots.length === 1 && wanted.every((name) => ended.some((span) => span.name === name));
    },
    one: (name, traceId) => {
      const found = (traceId === undefined ? spans() : trace(traceId)).filter(
        (span) => span.name === name,
      );
      if (found.length !== 1) {
        throw new Error(`${String(found.length)} spans named ${name}: ${names(spans())}`);
      }
      return found[0] as ReadableSpan;
    },
    close: () => tracing.shutdown(),
  };
}

function names(spans: readonly ReadableSpan[]): string {
  return spans.map((span) => span.name).join(', ');
}

/** Whether `ancestor` is `span`'s parent, or its parent's, and so on, within `spans`. */
export function isAncestor(
  spans: readonly ReadableSpan[],
  ancestor: ReadableSpan,
  span: ReadableSpan,
): boolean {
  const byId = new Map(spans.map((one) => [one.spanContext().spanId, one]));
  let parentId = span.parentSpanContext?.spanId;
  while (parentId !== undefined) {
    if (parentId === ancestor.spanContext().spanId) return true;
    parentId = byId.get(parentId)?.parentSpanContext?.spanId;
  }
  return false;
}

/** Every attribute value of every span and span event, as one text to search. */
export function attributeText(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((span) => [span.attributes, span.events.map((event) => event.attributes)]),
  );
}
