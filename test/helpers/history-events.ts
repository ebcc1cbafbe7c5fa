import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { CanonicalEvent } from '../../src/events/canonical-event';
import { normalizeEvent } from '../../src/events/normalize-event';
import { parseJsonEvent } from '../../src/events/parse-json-event';
import { createHistoryRecorder } from '../../src/history/create-history-recorder';
import type { AttemptInput, HistoryRecorder } from '../../src/history/create-history-recorder';

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

/** A recorder onto the outbox `streamKey` with the test key, keeping every body. */
export function testHistoryRecorder(redis: Redis, streamKey: string): HistoryRecorder {
  return createHistoryRecorder({
    redis,
    streamKey,
    historyKey: TEST_HISTORY_KEY,
    bodies: 'all',
    maxBacklog: 100,
  });
}

/**
 * A delivered attempt of `event`. Unless `durationMs` is given, its duration is over PostgreSQL's
 * integer, so PostgreSQL refuses it for its data (SQLSTATE 22003) whatever is done to text.
 */
export function deliveredAttempt(
  event: CanonicalEvent,
  attempt: number,
  durationMs = 3_000_000_000,
): AttemptInput {
  return {
    event,
    route: 'indexer',
    attempt,
    startedAt: new Date(),
    endedAt: new Date(),
    outcome: 'delivered',
    durationMs,
  };
}
