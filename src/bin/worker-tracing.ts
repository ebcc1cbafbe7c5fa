import { startTracing } from '../tracing/start-tracing';

/**
 * The worker's tracing, started when worker.ts is loaded and before the modules it imports after
 * this one: OTEL_EXPORTER_OTLP_ENDPOINT turns it on (docs/operations.md "Tracing").
 */
export const tracing = startTracing({ env: process.env, serviceName: 'svcws-worker' });
