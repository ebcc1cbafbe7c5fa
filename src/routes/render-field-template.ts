import type { CanonicalEvent } from '../events/canonical-event';
import { valuesAtPath } from './values-at-path';

/** `{item_loan.user_id}`: a path of the event in braces. */
const FIELD_PLACEHOLDER = /\{([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\}/g;

/** The short names render-template.ts has always filled, kept with their meaning. */
const SHORT: Readonly<Record<string, (event: CanonicalEvent) => unknown>> = {
  action: (event) => event.action,
  event: (event) => event.event?.value,
  institution: (event) => event.institution?.value,
  id: (event) => event.id,
};

/**
 * Fills `{path}` placeholders of an HTTP URL path or header with the event's value there (the
 * first, where the path walks a list); `{action}`, `{event}`, `{institution}` and `{id}` as in
 * render-template.ts. Values keep letters, digits, `_` and `-` (anything else becomes `_`), so an
 * event can neither leave its path segment nor add a header line; a missing value renders `none`.
 */
export function renderFieldTemplate(template: string, event: CanonicalEvent): string {
  return template.replace(FIELD_PLACEHOLDER, (_match, path: string) => {
    const short = SHORT[path];
    const value = short ? short(event) : valuesAtPath(event, path.split('.'))[0];
    const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    return text === '' ? 'none' : text.replace(/[^A-Za-z0-9_-]/g, '_');
  });
}

/** The event paths a template uses (the short names not included: they are the envelope). */
export function templatePathsOf(template: string): string[] {
  return [...template.matchAll(FIELD_PLACEHOLDER)]
    .map((match) => match[1] ?? '')
    .filter((path) => SHORT[path] === undefined);
}
