import type { Telemetry } from 'bullmq';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type * as TracingSdk from './open-tracing-sdk';

export interface StartTracingOptions {
  /** The process environment: OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on (docs/operations.md). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `service.name` unless OTEL_SERVICE_NAME says otherwise: svcws-listener, svcws-worker. */
  readonly serviceName: string;
  /**
   * Spans go here instead of OTLP, and tracing is on without an endpoint (tests and the bench use
   * the SDK's InMemorySpanExporter); spans are exported one by one, not batched.
   */
  readonly exporter?: SpanExporter;
}

export interface Tracing {
  readonly enabled: boolean;
  /** BullMQ's `telemetry` option (bullmq-otel) for every Queue and Worker; undefined when off. */
  readonly telemetry: Telemetry | undefined;
  /** The pino mixin: `trace_id` and `span_id` of the active span; undefined when off. */
  readonly logFields: (() => Record<string, string>) | undefined;
  /** Flushes the spans still buffered and unregisters everything. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = {
  enabled: false,
  telemetry: undefined,
  logFields: undefined,
  shutdown: () => Promise.resolve(),
};

/**
 * Tracing of one process (OpenTelemetry, docs/operations.md "Tracing"). Without
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) it returns at once: no SDK
 * is loaded and no instrumentation registered, and the code that opens spans talks to
 * @opentelemetry/api's no-op tracer. Synchronous so that bin/ can start it before express and
 * ioredis are loaded: the instrumentations patch modules as they are required.
 */
export function startTracing(options: StartTracingOptions): Tracing {
  const { env } = options;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (options.exporter === undefined && (endpoint === undefined || endpoint === '')) return OFF;
  // Loaded only when on: the SDK, its exporters and instrumentations cost nothing while off.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy, synchronous load
  const sdk = require('./open-tracing-sdk') as typeof TracingSdk;
  return sdk.openTracingSdk(options);
}
