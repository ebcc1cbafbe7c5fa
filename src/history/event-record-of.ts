import type { CanonicalEvent } from '../events/canonical-event';
import type { EventKind } from '../events/kinds/event-kind';
import { eventKinds } from '../events/kinds/event-kinds';
import { isPatronEvent } from '../events/personal-fields';
import type { HistoryBodies } from './history-bodies';
import type { HistoryKeys } from './history-keys';
import type { EventRecord } from './history-record';
import { identifiersOf } from './identifiers-of';
import { storableIdentifier } from './storable-record';

/** What binds a sealed body to its event: a body cannot be moved to another row and opened. */
export function bodyAad(institution: string, eventId: string): string {
  return `${institution}\u0000${eventId}`;
}

/** Patron flags by kinds list and event object: an event's attempts ask again for its flag. */
const patronFlags = new WeakMap<readonly EventKind[], WeakMap<CanonicalEvent, boolean>>();

/** isPatronEvent, once per event object (an event is not changed once the worker has it). */
export function patronOf(event: CanonicalEvent, kinds: readonly EventKind[] = eventKinds): boolean {
  let flags = patronFlags.get(kinds);
  if (flags === undefined) {
    flags = new WeakMap();
    patronFlags.set(kinds, flags);
  }
  let flag = flags.get(event);
  if (flag === undefined) {
    flag = isPatronEvent(event, kinds);
    flags.set(event, flag);
  }
  return flag;
}

/** The institution column: the event's code, '' when the event carries none. */
export function institutionOf(event: CanonicalEvent): string {
  return event.institution?.value ?? '';
}

/**
 * The row of one event, made where the event is (the worker), so no person's id or body leaves
 * it in clear: ids become keyed hashes, a patron event's body is sealed (HISTORY_BODIES allowing).
 */
export function eventRecordOf(
  event: CanonicalEvent,
  receivedAt: Date,
  keys: HistoryKeys,
  bodies: HistoryBodies,
  kinds: readonly EventKind[] = eventKinds,
): EventRecord {
  const patron = patronOf(event, kinds);
  // The keys as the row will hold them (storable-record.ts): a sealed body opens with the row's.
  const institution = storableIdentifier(institutionOf(event));
  const eventId = storableIdentifier(event.id);
  const ids = identifiersOf(event, kinds);
  const record: EventRecord = {
    type: 'event',
    patron,
    receivedAt: receivedAt.toISOString(),
    institution,
    eventId,
    action: event.action,
    platformTime: event.time,
    userKeys: [...new Set(ids.personIds.map(keys.hashPerson))],
    barcodes: ids.barcodes,
    mmsIds: ids.mmsIds,
    loanIds: ids.loanIds,
    requestIds: ids.requestIds,
    jobInstanceIds: ids.jobInstanceIds,
  };
  if (event.event?.value !== undefined) record.eventCode = event.event.value;
  if (patron && bodies === 'all') {
    const plain = Buffer.from(JSON.stringify(event));
    record.bodySealed = keys.seal(plain, bodyAad(institution, eventId)).toString('base64');
  } else if (!patron && bodies !== 'none') {
    record.body = event;
  }
  return record;
}

/** The time the event was received: the listener's, when it carries one (the same on a retry). */
export function receivedAtOf(event: CanonicalEvent, fallback: Date | string | undefined): Date {
  const stamp = event.meta?.receivedAt ?? fallback;
  const date = stamp === undefined ? new Date() : new Date(stamp);
  return Number.isNaN(date.getTime()) ? new Date() : date;
}
