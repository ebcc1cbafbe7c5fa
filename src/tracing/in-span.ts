import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Link, Span, SpanKind } from '@opentelemetry/api';
import { errnoCode } from '../errno-code';

/** The instrumentation scope of the spans this code opens itself. */
const SCOPE = 'svcws-listener';

export interface InSpanOptions {
  readonly kind?: SpanKind;
  /** Ids and names only (event-attributes.ts): never a secret, never a patron's data. */
  readonly attributes: Attributes;
  readonly links?: Link[];
}

/**
 * Runs `work` inside a new span, child of the active one: ended when `work` settles, marked as an
 * error (with the exception) when it throws. Spans go to @opentelemetry/api's global tracer, a
 * no-op until startTracing (start-tracing.ts) registers the SDK — a global rather than a tracer
 * passed in, because the official instrumentations and bullmq-otel use it too, and one trace
 * needs every span of the process under the same provider. Off, this is a few calls that
 * allocate a non-recording span: nothing the ingress bench can see (docs/operations.md).
 */
export function inSpan<T>(
  name: string,
  options: InSpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer(SCOPE).startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      // Its type and code, never its message: a failure reason can quote the event or a URL
      // with a secret in it. The log line about the failure (same trace_id) says the reason.
      const exception = exceptionTypeOf(error);
      span.recordException(exception);
      span.setStatus({ code: SpanStatusCode.ERROR, message: exception.code ?? exception.name });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** An error's name and string `code` (ECONNREFUSED, a platform's error code), nothing else. */
function exceptionTypeOf(error: unknown): { name: string; code?: string } {
  const name = error instanceof Error ? error.name : 'Error';
  const code = errnoCode(error);
  return code === undefined ? { name } : { name, code };
}
