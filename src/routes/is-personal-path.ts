import type { CanonicalEvent } from '../events/canonical-event';
import { withoutPersonalData } from '../events/personal-fields';
import { valuesAtPath } from './values-at-path';

const PROBE = 'personal-path-probe';

/**
 * Whether `mask: patron` removes what a path reaches, asked of the one list itself
 * (src/events/personal-fields.ts): an event holding only a probe value at that path is masked,
 * and the path is personal when the probe is gone. No second list to keep in step.
 */
export function isPersonalPath(path: string): boolean {
  const names = path.split('.');
  const probe = names.reduceRight<unknown>((inner, name) => ({ [name]: inner }), PROBE);
  const event = { id: 'probe', action: 'probe', time: 'probe', ...(probe as object) };
  const masked = withoutPersonalData(event as CanonicalEvent);
  return !valuesAtPath(masked, names).includes(PROBE);
}
