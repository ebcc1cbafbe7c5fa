export { CanonicalEvent, CodeValue, EventMeta } from './canonical-event';
export { normalizeEvent } from './normalize-event';
export { parseJsonEvent } from './parse-json-event';
export { parseXmlEvent } from './parse-xml-event';
export { InvalidEventError } from './invalid-event-error';
export { createEventEnqueuer } from './enqueue-event';
export type { EnqueueEvent, EnqueueResult, EventEnqueuerOptions } from './enqueue-event';
export { jobIdForEvent } from './job-id-for-event';
