import { CanonicalEvent } from '../../events/canonical-event';
import { MASK, withoutPersonalData } from '../../events/personal-fields';
import type { Principal } from '../auth/principal';

/**
 * A job's event as this principal may read it: operators see it whole, viewers without its patron
 * fields (the kinds' one list, src/events/personal-fields.ts). Data that is not an event is masked
 * whole for viewers rather than guessed at.
 */
export function eventFor(principal: Principal, data: unknown): unknown {
  if (principal.role === 'operator') return data;
  const event = CanonicalEvent.safeParse(data);
  return event.success ? withoutPersonalData(event.data) : MASK;
}
