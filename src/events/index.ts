export { CanonicalEvent, CodeValue, EventMeta } from './canonical-event';
export { normalizeEvent } from './normalize-event';
export { parseJsonEvent } from './parse-json-event';
export { parseXmlEvent } from './parse-xml-event';
export { InvalidEventError } from './invalid-event-error';
export { createEventEnqueuer } from './enqueue-event';
export type { EnqueueEvent, EnqueueResult, EventEnqueuerOptions } from './enqueue-event';
export { jobIdForEvent } from './job-id-for-event';
export { MAX_NESTING_DEPTH } from './max-nesting-depth';
export type { EventKind } from './kinds/event-kind';
export { JobEndSubject } from './kinds/job-end';
export { LoanSubject } from './kinds/loan';
export { RequestSubject } from './kinds/request';
export { BibSubject } from './kinds/bib';
export { ItemSubject } from './kinds/item';
export { UserSubject } from './kinds/user';
export { NotificationSubject } from './kinds/notification';
export {
  isPatronEvent,
  personalValuesOf,
  withoutPersonalData,
} from './personal-fields';
