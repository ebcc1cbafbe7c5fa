import { propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Link } from '@opentelemetry/api';
import type { Job } from 'bullmq';
import { eventAttributes } from '../tracing/event-attributes';
import { inSpan } from '../tracing/in-span';

/** The delivery fields create-route-worker.ts logs; the span carries the same ids. */
export interface DeliverySpanFields {
  readonly eventId: string;
  readonly route: string;
  readonly destination: string;
  readonly attempt: number;
}

/**
 * One delivery attempt as a span `deliver <route>` of the event's trace (docs/operations.md
 * "Tracing"): a child of BullMQ's `process` span of the route job, linked to the fan-out's `add`
 * that made the job (the context BullMQ keeps in the job's options), so each attempt — hours
 * later, in another worker — still points at the event that caused it. The adapters inject this
 * span's context into the message (`traceparent`), where the institution's consumer continues.
 */
export function deliveryInSpan<T>(
  job: Job,
  fields: DeliverySpanFields,
  deliver: () => Promise<T>,
): Promise<T> {
  return deliverySpan(job.name, fields, deliver, producerLinkOf(job));
}

/**
 * The first attempt made inline in the event job (docs/routing.md "How a delivery is scheduled"):
 * the same span, a child of the event's run, with no route job to link to.
 */
export function inlineDeliveryInSpan<T>(
  action: string,
  fields: DeliverySpanFields,
  deliver: () => Promise<T>,
): Promise<T> {
  return deliverySpan(action, fields, deliver, undefined);
}

function deliverySpan<T>(
  action: string,
  fields: DeliverySpanFields,
  deliver: () => Promise<T>,
  links: Link[] | undefined,
): Promise<T> {
  const attributes = {
    ...eventAttributes({ ...fields, action }),
    'svcws.destination.kind': fields.destination,
  };
  return inSpan(
    `deliver ${fields.route}`,
    { kind: SpanKind.PRODUCER, attributes, ...(links === undefined ? {} : { links }) },
    deliver,
  );
}

/** The span that added the job, from the trace context BullMQ stored with it (JSON of headers). */
function producerLinkOf(job: Job): Link[] | undefined {
  const metadata = (job.opts as { telemetry?: { metadata?: unknown } }).telemetry?.metadata;
  if (typeof metadata !== 'string') return undefined;
  let carrier: unknown;
  try {
    carrier = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
  return spanContext === undefined ? undefined : [{ context: spanContext }];
}
