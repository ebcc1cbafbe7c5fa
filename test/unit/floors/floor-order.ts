/**
 * The floors of src/, top first: a room may import rooms on its own floor and on the floors below,
 * never one above. A room is a folder (`routes/`) or a file (`config.ts`) under src/, or the client
 * package; `worker/*\/` is every kind room under worker/. docs/worker.md ("Floors") lists the same
 * floors, and imports-run-down.test.ts holds both the doc and every import of src/ to this list.
 */
export const FLOORS: readonly (readonly string[])[] = [
  ['bin/'],
  ['processes/'],
  ['cli/', 'console/'],
  ['operations/', 'index.ts'],
  ['history/', 'routes/', 'expected/'],
  ['handlers/'],
  ['worker/*/'],
  ['worker/'],
  ['metrics/', 'http/'],
  ['events/'],
  [
    'config.ts',
    'startup/',
    'institutions/',
    'redis/',
    'tracing/',
    'logger.ts',
    'process/',
    'files/',
    'platform-xml/',
    'signature/',
    'body-caps-of.ts',
    'count-of.ts',
    'err-field.ts',
    'errno-code.ts',
    'is-record.ts',
    'message-of.ts',
    'request-failure.ts',
    'with-timeout.ts',
    'with-article.ts',
  ],
  ['@svcws/client'],
];
