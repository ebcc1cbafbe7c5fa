/**
 * BullMQ job id for an event id. BullMQ refuses ids that contain `:` or are all digits (the
 * platform's ids are all digits), so the id is prefixed and percent-encoded: one event id, one job
 * id, and two different event ids never share one.
 */
export function jobIdForEvent(eventId: string): string {
  return `evt-${encodeURIComponent(eventId)}`;
}
