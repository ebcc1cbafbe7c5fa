/**
 * `amqp://user:secret@host/vhost` → `amqp://user:***@host/vhost`: destination URLs reach log lines,
 * CLI output and failed reasons only through this, since those are kept and shared where a password
 * must not be. Works on text, so a list of servers or a URL that does not parse is redacted too.
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s/]*@/gi, '$1***@');
}
