import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CanonicalEvent } from '../../src/events/canonical-event';
import { normalizeEvent } from '../../src/events/normalize-event';
import { parseJsonEvent } from '../../src/events/parse-json-event';

/** A JSON fixture of test/fixtures/events as the worker gets it, with its own id and time. */
export function fixtureEvent(
  name: string,
  changes: { id?: string; receivedAt?: string } = {},
): CanonicalEvent {
  const text = readFileSync(path.join(__dirname, '../fixtures/events', `${name}.json`), 'utf8');
  const event = normalizeEvent(parseJsonEvent(text));
  return {
    ...event,
    ...(changes.id === undefined ? {} : { id: changes.id }),
    meta: {
      format: 'json',
      receivedAt: changes.receivedAt ?? new Date().toISOString(),
      requestId: 'req-test',
    },
  };
}

/** A key for tests only (32 characters or more, like HISTORY_KEY). */
export const TEST_HISTORY_KEY = 'test-history-key-0123456789abcdef';
