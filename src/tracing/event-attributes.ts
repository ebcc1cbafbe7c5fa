import type { Attributes } from '@opentelemetry/api';

/** What a span says about an event: its id and action, never a field of its payload. */
export interface EventAttributeSource {
  readonly eventId: string | undefined;
  readonly action: string | undefined;
  readonly institution?: string | undefined;
  readonly route?: string;
  readonly attempt?: number;
}

/**
 * The span attributes of an event's spans (docs/operations.md "Tracing"). Only identifiers the
 * platform and the routes file give (event id, action, institution code, route name) and the
 * attempt: a patron's id, name or address and every secret stay out of traces, which are shipped
 * and kept where logs are.
 */
export function eventAttributes(source: EventAttributeSource): Attributes {
  const attributes: Attributes = {};
  if (source.eventId !== undefined) attributes['svcws.event.id'] = source.eventId;
  if (source.action !== undefined) attributes['svcws.event.action'] = source.action;
  if (source.institution !== undefined) attributes['svcws.institution'] = source.institution;
  if (source.route !== undefined) attributes['svcws.route'] = source.route;
  if (source.attempt !== undefined) attributes['svcws.attempt'] = source.attempt;
  return attributes;
}
