import path from 'node:path';
import type { CanonicalEvent } from '../../src/events/canonical-event';
import { normalizeEvent } from '../../src/events/normalize-event';
import { parseJsonEvent } from '../../src/events/parse-json-event';
import { parseXmlEvent } from '../../src/events/parse-xml-event';

export const FIXTURES_DIR = path.join(__dirname, '../fixtures/events');

/*
 * The personal values of an event, derived here from the words its keys use — not from the
 * kinds' lists (events/kinds/*), so a place those lists miss shows up as a leak.
 */

/** Keys whose whole value is a person: a patron, a requester, a letter's receiver, a proxy. */
const PERSON =
  /^(?:users?|patrons?|requesters?|receivers?|recipients?|borrowers?|proxy_for_user|user_for_printing)$/;
/** Keys that hold a person's id wherever they stand. */
const PERSON_ID = /^(?:user_id|user_primary_id|patron_id|requester_id|primary_id)$/;
/** Inside a person: the keys that name, reach or describe them. */
const ATTRIBUTE =
  /(?:^|_)(?:id|name|pin|pin_number|password|birth_date|line\d|address\d?|city|postal_code|state_province|email|email_address|phone|phone_number|note|note_text|description)$/;
/** Free text of a patron event: what they or a desk wrote (it may greet or describe them). */
const FREE_TEXT = /^(?:note|note_text|comment|message|content)$/;
/** Subjects of events about a patron (a loan, a request, a user record, a letter). */
const PATRON_SUBJECTS = ['item_loan', 'user_request', 'webhook_user', 'notification_data'];

interface Place {
  /** The key the value stands at (a list's elements stand at the list's key). */
  readonly key: string;
  /** The keys above it, outermost first. */
  readonly above: readonly string[];
  readonly inPerson: boolean;
}

function isPersonal(place: Place, patronEvent: boolean): boolean {
  const { key, above, inPerson } = place;
  if (PERSON_ID.test(key)) return true;
  if (patronEvent && FREE_TEXT.test(key)) return true;
  if (!inPerson) return false;
  // A list of addresses under a receiver's key (`recipients: ["a@…"]`), a name, an e-mail.
  if (PERSON.test(key) || ATTRIBUTE.test(key)) return true;
  // An identifier's value (`user_identifier: [{ id_type, value }]`): a library card, a student id.
  return key === 'value' && /identifier/.test(above.at(-1) ?? '');
}

/** Every personal string of `event`, each once. */
export function derivedPersonalValues(event: CanonicalEvent): string[] {
  const patronEvent = PATRON_SUBJECTS.some((subject) => subject in event);
  const found = new Set<string>();
  const walk = (value: unknown, place: Place): void => {
    if (typeof value === 'string') {
      if (value.trim() !== '' && isPersonal(place, patronEvent)) found.add(value);
    } else if (Array.isArray(value)) {
      for (const element of value) walk(element, place);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'meta') continue;
        walk(child, {
          key,
          above: [...place.above, place.key],
          inPerson: place.inPerson || PERSON.test(key),
        });
      }
    }
  };
  walk(event, { key: '', above: [], inPerson: false });
  return [...found];
}

/** Every string of a JSON value, keys included, lower-cased. */
function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value.toLowerCase()];
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, child]) => [key.toLowerCase(), ...textsOf(child)]);
  }
  return [];
}

/** The personal values found anywhere inside `output`, without regard to case. */
export function leakedInto(values: readonly string[], output: unknown): string[] {
  const texts = textsOf(output);
  return values.filter((value) => texts.some((text) => text.includes(value.toLowerCase())));
}

/** A fixture's body (JSON or XML) as the listener normalizes it. */
export function eventOfBody(body: string, xml: boolean): CanonicalEvent {
  return normalizeEvent(xml ? parseXmlEvent(body) : parseJsonEvent(body));
}
