import { bib } from './bib';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';
import type { FieldRules } from './field-rules';
import { item } from './item';
import { jobEnd } from './job-end';
import { loan } from './loan';
import { notification } from './notification';
import { request } from './request';
import { user } from './user';

/**
 * Every kind the listener knows the fields of, one file each; an event of another kind is kept
 * as sent. Adding a kind is its file and one line here (docs/canonical-event.md).
 */
export const eventKinds: readonly EventKind[] = [
  jobEnd,
  loan,
  request,
  bib,
  item,
  user,
  notification,
];

/**
 * The rules of the event's root: the two codes every kind carries, and each kind's subject with
 * its own rules. A subject is found by its key, so `LOAN` and `LOAN_CREATED` read the same.
 */
export function rootFieldRulesOf(kinds: readonly EventKind[]): FieldRules {
  return fieldRules({
    codes: ['institution', 'event'],
    objects: Object.fromEntries(kinds.map((kind) => [kind.subject, kind.rules])),
  });
}

/** The root rules of the kinds above, built once. */
export const rootFieldRules: FieldRules = rootFieldRulesOf(eventKinds);
