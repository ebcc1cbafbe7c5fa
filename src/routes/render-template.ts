import type { CanonicalEvent } from '../events/canonical-event';

const PLACEHOLDER = /\{(action|event|institution|id)\}/g;

/**
 * Fills `{action}`, `{event}`, `{institution}` and `{id}` in a routing key, subject, stream or path
 * from the event. Values keep only letters, digits, `_` and `-` (anything else becomes `_`), so an
 * event can neither add words to an AMQP key or a NATS subject nor leave a directory; a value the
 * event does not carry renders as `none`.
 */
export function renderTemplate(template: string, event: CanonicalEvent): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const value =
      name === 'action'
        ? event.action
        : name === 'id'
          ? event.id
          : name === 'event'
            ? event.event?.value
            : event.institution?.value;
    return value === undefined || value === '' ? 'none' : value.replace(/[^A-Za-z0-9_-]/g, '_');
  });
}
