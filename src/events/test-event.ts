import type { CanonicalEvent } from './canonical-event';

/**
 * The id prefix of an event `send-test-event` makes (src/cli/sample-events.ts). It lives in the
 * signed body, so it is read only once the signature holds, and it is the event's id: it survives
 * parsing, the queue (the job id is made of it) and the history unchanged. The platform's ids are
 * digits (event-key-bounds.ts), so no event it sends carries it. The worker completes such an
 * event without work and routes skip it unless they opt in (`testEvents: true`, docs/routing.md).
 */
export const TEST_EVENT_PREFIX = 'svcws-test-';

/** The event was made by `send-test-event` (its id starts with TEST_EVENT_PREFIX). */
export function isTestEvent(event: Pick<CanonicalEvent, 'id'>): boolean {
  return event.id.startsWith(TEST_EVENT_PREFIX);
}
