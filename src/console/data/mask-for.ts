import { safeParseCanonicalEvent } from '../../events/canonical-event';
import { onlySafeFields } from '../../events/kinds/only-safe-fields';
import {
  MASK,
  maskValuesIn,
  personalValuesOf,
  withoutPersonalData,
} from '../../events/personal-fields';
import type { ConsoleRole } from '../auth/principal';

/** A viewer's text keeps a masked field's value if it is this short: "1", "EN" name no one. */
const SHORTEST_HIDDEN = 4;

/** Data (a job's event, a history body) as a principal may read it, and its texts likewise. */
export interface MaskedView {
  readonly data: unknown;
  /** A text about the data (a failure's reason, a stack) with what `data` hides hidden too. */
  readonly text: (text: string) => string;
}

/**
 * What a principal may read of an event: operators see it whole; viewers see what is known to be
 * safe (the kinds' allow lists, EventKind.safe) of the event with its personal fields already
 * removed (the kinds' personal lists), every other field masked. Data that is not an event is
 * masked whole for viewers rather than guessed at, and so are texts about it.
 */
export function viewFor(role: ConsoleRole, data: unknown): MaskedView {
  if (role === 'operator') return { data, text: (text) => text };
  const parsed = safeParseCanonicalEvent(data);
  if (!parsed.success) return { data: MASK, text: () => MASK };
  const safe = onlySafeFields(withoutPersonalData(parsed.data));
  const hidden = [
    ...personalValuesOf(parsed.data),
    ...safe.hidden.filter((value) => value.length >= SHORTEST_HIDDEN),
  ];
  return { data: safe.event, text: (text) => maskValuesIn(text, hidden) };
}
