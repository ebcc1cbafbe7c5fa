import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CanonicalEvent } from '../../src/events/canonical-event';
import { normalizeEvent } from '../../src/events/normalize-event';
import { parseJsonEvent } from '../../src/events/parse-json-event';

/** One public-shaped payload of each of the seven kinds (test/fixtures/events), by kind. */
export const FIXTURE_OF_KIND = {
  job_end: 'job-end.json',
  loan: 'loan-created.json',
  request: 'request-created.json',
  bib: 'bib-updated.json',
  item: 'item-updated.json',
  user: 'user-updated.json',
  notification: 'notification.json',
} as const;
export type FixtureKind = keyof typeof FIXTURE_OF_KIND;
export const FIXTURE_KINDS = Object.keys(FIXTURE_OF_KIND) as FixtureKind[];

/** The fixture of `kind` as the listener stores it (canonical form). */
export function fixtureEvent(kind: FixtureKind): CanonicalEvent {
  const text = readFileSync(
    join(__dirname, '..', 'fixtures', 'events', FIXTURE_OF_KIND[kind]),
    'utf8',
  );
  return normalizeEvent(parseJsonEvent(text), {
    format: 'json',
    receivedAt: '2025-03-01T10:00:00.000Z',
    requestId: 'fixture',
  });
}
