import type { CanonicalEvent } from '../events/canonical-event';
import { valuesAtPath } from './values-at-path';

/** `{action}`, `{event}`, `{institution}` and `{id}`: the envelope's names. */
const ENVELOPE_PLACEHOLDER = /\{(action|event|institution|id)\}/g;
/** `{item_loan.user_id}`: a path of the event in braces (the envelope's names among them). */
const PATH_PLACEHOLDER = /\{([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\}/g;

/** The envelope's names, each with its meaning. */
const ENVELOPE: Readonly<Record<string, (event: CanonicalEvent) => unknown>> = {
  action: (event) => event.action,
  event: (event) => event.event?.value,
  institution: (event) => event.institution?.value,
  id: (event) => event.id,
};

/**
 * Fills a template from the event: `{action}`, `{event}`, `{institution}` and `{id}` in a routing
 * key, subject, stream or path; with `paths`, any `{path}` of the event too (an HTTP URL path or
 * header, an MQTT topic: the first value, where the path walks a list). Values keep only letters,
 * digits, `_` and `-` (anything else becomes `_`), so an event can neither add words to an AMQP
 * key or a NATS subject, leave a directory or its path segment, nor add a header line; a value the
 * event does not carry renders as `none`.
 */
export function renderTemplate(
  template: string,
  event: CanonicalEvent,
  { paths = false }: { paths?: boolean } = {},
): string {
  return template.replace(
    paths ? PATH_PLACEHOLDER : ENVELOPE_PLACEHOLDER,
    (_match, path: string) => {
      const envelope = ENVELOPE[path];
      const value = envelope ? envelope(event) : valuesAtPath(event, path.split('.'))[0];
      const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
      return text === '' ? 'none' : text.replace(/[^A-Za-z0-9_-]/g, '_');
    },
  );
}

/** The event paths a template uses (the envelope's names not included). */
export function templatePathsOf(template: string): string[] {
  return [...template.matchAll(PATH_PLACEHOLDER)]
    .map((match) => match[1] ?? '')
    .filter((path) => ENVELOPE[path] === undefined);
}
