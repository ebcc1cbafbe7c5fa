import { context, propagation, trace } from '@opentelemetry/api';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector } from '@opentelemetry/resources';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { IncomingMessage } from 'node:http';
import { createBullmqTelemetry } from './create-bullmq-telemetry';
import type { StartTracingOptions, Tracing } from './start-tracing';
import { traceLogFields } from './trace-log-fields';

/** The instrumentation's own list (signed cloud URLs) and the platform's key. */
const REDACTED_QUERY_PARAMS = ['apikey', 'sig', 'Signature', 'AWSAccessKeyId', 'X-Goog-Signature'];

/** Incoming requests that are no event's: scrapes and probes would each be a trace of their own. */
const UNTRACED_PATHS = /^\/(metrics|health|ready|live)/;

/**
 * The SDK side of startTracing (start-tracing.ts), loaded only when tracing is on: a provider
 * registered globally (AsyncLocalStorage context, W3C trace context), an OTLP exporter by
 * OTEL_EXPORTER_OTLP_PROTOCOL, and the instrumentations of node:http (the POST, the API client's
 * calls), express and ioredis. The sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG) and the
 * exporter's endpoint, headers and timeout are read from the environment by the SDK itself.
 */
export function openTracingSdk(options: StartTracingOptions): Tracing {
  const { env } = options;
  const serviceName = env.OTEL_SERVICE_NAME ?? options.serviceName;
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': serviceName }));
  const exporter = options.exporter ?? otlpExporterOf(env);
  const processor =
    options.exporter === undefined
      ? new BatchSpanProcessor(exporter)
      : new SimpleSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // The API key travels as a query parameter (spec §5 rule 1): never into an attribute.
        redactedQueryParams: REDACTED_QUERY_PARAMS,
        redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
        ignoreIncomingRequestHook: (request: IncomingMessage) =>
          UNTRACED_PATHS.test(request.url ?? ''),
      }),
      // Router and handler spans only: one per middleware would outnumber the event's own.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Commands inside an event's work only, not BullMQ's polling between events; the command's
      // name alone in `db.query.text`: its arguments are keys and values, and the queue's add
      // script (EVALSHA) takes the job's data, i.e. the whole event.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: nameOnly }),
      // The postgres destination's inserts inside a delivery; statement text only, never the
      // values (enhancedDatabaseReporting stays off: they are the event's body). Every statement
      // of ours is parameterized ($1…), so its text holds no value. The history writer's
      // batches run outside any event and are not traced.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  return {
    enabled: true,
    telemetry: createBullmqTelemetry(serviceName),
    logFields: traceLogFields,
    shutdown: async () => {
      unregister();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** ioredis's `db.query.text`: `EVALSHA`, `XADD`… without a key or a value. */
function nameOnly(command: string): string {
  return command;
}

/** OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: http/protobuf (the specification's default) or http/json. */
function otlpExporterOf(env: StartTracingOptions['env']): SpanExporter {
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (protocol === 'http/json') return new OtlpJsonExporter();
  if (protocol === 'http/protobuf') return new OtlpProtobufExporter();
  throw new Error(
    `OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported (http/protobuf or http/json)`,
  );
}
