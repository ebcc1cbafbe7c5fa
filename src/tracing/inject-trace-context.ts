import { context, propagation } from '@opentelemetry/api';

/**
 * Hands the active span's `traceparent` (and `tracestate`) to `set`, which adds each to the
 * outgoing message's headers, so the institution's consumer continues the event's trace (W3C Trace
 * Context). Off, the global propagator is a no-op and `set` is never called.
 */
export function injectTraceContext(set: (key: string, value: string) => void): void {
  propagation.inject(context.active(), undefined, {
    set: (_carrier, key, value) => set(key, value),
  });
}
