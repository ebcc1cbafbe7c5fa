import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { historyBody, listSetAside, searchHistory } from '../../../src/history';
import type { HistoryRecorder } from '../../../src/history/create-history-recorder';
import { createHistoryWriter } from '../../../src/history/create-history-writer';
import type { HistoryWriter } from '../../../src/history/create-history-writer';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import type { SqlExecutor } from '../../../src/history/sql-executor';
import { openHistoryThroughProxy, openTestHistory } from '../../helpers/history-database';
import {
  TEST_HISTORY_KEY,
  deliveredAttempt,
  fixtureEvent,
  testHistoryRecorder,
} from '../../helpers/history-events';
import { TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';

/** What the history must hold at most this long after an ordinary event follows a hostile one. */
const NEXT_EVENT_WITHIN_MS = 5000;

interface StoredEvent {
  event_id: string;
  barcodes: string[];
  mms_ids: string[];
  loan_ids: string[];
  body: Record<string, unknown> | null;
}

async function eventRow(db: SqlExecutor, eventId: string): Promise<StoredEvent | undefined> {
  const result = await db.query<StoredEvent>(
    'SELECT event_id, barcodes, mms_ids, loan_ids, body FROM events WHERE event_id = $1',
    [eventId],
  );
  return result.rows[0];
}

/** Polls for the event's row; how long it took, or undefined past the deadline. */
async function writtenWithin(
  db: SqlExecutor,
  eventId: string,
  deadlineMs: number,
): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    if ((await eventRow(db, eventId)) !== undefined) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

function withChanges(event: CanonicalEvent, change: (copy: Record<string, unknown>) => void) {
  const copy = structuredClone(event) as Record<string, unknown>;
  change(copy);
  return copy as CanonicalEvent;
}

function nested(value: unknown, ...path: string[]): Record<string, unknown> {
  let at = value as Record<string, unknown>;
  for (const key of path) at = at[key] as Record<string, unknown>;
  return at;
}

/** An id PostgreSQL cannot compress under the index limit (a repeated digit would fit). */
const LONG_ID = randomBytes(4500).toString('base64');

const sha256 = (text: string): string =>
  `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Hostile events, validly shaped, and what the history must hold of each. */
const HOSTILE: readonly {
  name: string;
  event: () => CanonicalEvent;
  expect: (row: StoredEvent) => void;
  storedId: string;
}[] = [
  {
    name: 'an event id holding a lone surrogate',
    event: () => fixtureEvent('item-updated', { id: '1021\ud800x' }),
    storedId: '1021\uFFFDx',
    expect: (row) => expect(row.body?.id).toBe('1021\uFFFDx'),
  },
  {
    name: 'an event id of about 6 KB',
    event: () => fixtureEvent('item-updated', { id: LONG_ID }),
    storedId: sha256(LONG_ID),
    expect: (row) => expect(row.body?.id).toBe(LONG_ID),
  },
  {
    name: 'a NUL in the event id',
    event: () => fixtureEvent('item-updated', { id: 'nul\u0000id' }),
    storedId: 'nul\uFFFDid',
    expect: (row) => expect(row.body?.id).toBe('nul\uFFFDid'),
  },
  {
    name: 'a NUL in a barcode',
    event: () =>
      withChanges(fixtureEvent('item-updated', { id: 'nul-barcode' }), (copy) => {
        nested(copy, 'item', 'item_data').barcode = '3900\u0000123';
      }),
    storedId: 'nul-barcode',
    expect: (row) => expect(row.barcodes).toEqual(['3900\uFFFD123']),
  },
  {
    name: 'a NUL in an MMS id',
    event: () =>
      withChanges(fixtureEvent('item-updated', { id: 'nul-mms' }), (copy) => {
        nested(copy, 'item', 'bib_data').mms_id = '99\u00001';
      }),
    storedId: 'nul-mms',
    expect: (row) => expect(row.mms_ids).toEqual(['99\uFFFD1']),
  },
  {
    name: 'a NUL in a loan id',
    event: () =>
      withChanges(fixtureEvent('loan-created', { id: 'nul-loan' }), (copy) => {
        nested(copy, 'item_loan').loan_id = '234\u00005';
      }),
    storedId: 'nul-loan',
    expect: (row) => expect(row.loan_ids).toEqual(['234\uFFFD5']),
  },
];

describe('the history writer never holds the line for one record', () => {
  let redis: Redis;
  let streamKey: string;
  let recorder: HistoryRecorder;
  let history: Awaited<ReturnType<typeof openTestHistory>>;
  let writer: HistoryWriter | undefined;

  beforeEach(async () => {
    redis = new Redis(TEST_REDIS_URL);
    streamKey = `${uniqueQueueName('aside')}:history`;
    recorder = testHistoryRecorder(redis, streamKey);
    history = await openTestHistory('aside');
  });

  afterEach(async () => {
    await writer?.stop();
    writer = undefined;
    await redis.del(streamKey, `${streamKey}:records`);
    redis.disconnect();
    await history.close();
  });

  it.each(HOSTILE)(
    'writes $name safely, and the next ordinary event within 5 s',
    async ({ event, storedId, expect: expectRow }) => {
      writer = createHistoryWriter({ redis, db: history.db, streamKey, retryMs: 50, blockMs: 100 });
      writer.start();

      expect(await recorder.event(event())).toBe(true);
      expect(await recorder.event(fixtureEvent('bib-updated', { id: 'ordinary-next' }))).toBe(true);

      expect(await writtenWithin(history.db, 'ordinary-next', NEXT_EVENT_WITHIN_MS)).toBeDefined();
      const row = await eventRow(history.db, storedId);
      expect(row).toBeDefined();
      if (row !== undefined) expectRow(row);
      expect(writer.setAside()).toBe(0);
      expect(await writer.backlog()).toBe(0);
    },
  );

  it('finds an event whose id was kept as its hash by the id it came with', async () => {
    const longId = LONG_ID.slice(0, 3000);
    await recorder.event(fixtureEvent('item-updated', { id: longId }));
    await createHistoryWriter({ redis, db: history.db, streamKey }).drainOnce();

    const page = await searchHistory(
      { db: history.db, keys: deriveHistoryKeys(TEST_HISTORY_KEY) },
      { id: longId },
    );

    expect(page.items.map((item) => item.eventId)).toEqual([sha256(longId)]);
  });

  it("opens a patron event's sealed body under the key its row keeps (a long id's hash)", async () => {
    const event = fixtureEvent('loan-created', { id: LONG_ID });
    await recorder.event(event);
    await createHistoryWriter({ redis, db: history.db, streamKey }).drainOnce();
    const context = { db: history.db, keys: deriveHistoryKeys(TEST_HISTORY_KEY) };
    const [found] = (await searchHistory(context, { id: LONG_ID })).items;

    expect(found?.patron).toBe(true);
    const body =
      found === undefined
        ? undefined
        : await historyBody(context, {
            institution: found.institution,
            eventId: found.eventId,
            receivedAt: found.receivedAt,
          });
    expect(body?.id).toBe(LONG_ID);
  });

  it('sets aside a record PostgreSQL refuses for its data, writes the rest, and lists it', async () => {
    writer = createHistoryWriter({ redis, db: history.db, streamKey, retryMs: 50, blockMs: 100 });
    const event = fixtureEvent('bib-updated', { id: 'with-bad-attempt' });
    await recorder.event(event);
    await recorder.attempt(deliveredAttempt(event, 1));
    await recorder.attempt(deliveredAttempt(event, 2, 12));
    await recorder.event(fixtureEvent('bib-updated', { id: 'ordinary-after' }));
    writer.start();

    expect(await writtenWithin(history.db, 'ordinary-after', NEXT_EVENT_WITHIN_MS)).toBeDefined();
    expect(await eventRow(history.db, 'with-bad-attempt')).toBeDefined();
    const attempts = await history.db.query<{ attempt: number }>(
      'SELECT attempt FROM attempts WHERE event_id = $1',
      ['with-bad-attempt'],
    );
    expect(attempts.rows).toEqual([{ attempt: 2 }]);
    expect(writer.setAside()).toBe(1);
    const listed = await listSetAside(history.db);
    expect(listed.items).toEqual([
      expect.objectContaining({
        recordType: 'attempt',
        eventId: 'with-bad-attempt',
        sqlstate: '22003',
        patron: false,
      }),
    ]);
    expect(JSON.parse(listed.items[0]?.record ?? '{}')).toMatchObject({ durationMs: 3e9 });
    expect(await writer.backlog()).toBe(0);
  });

  it('retries the whole batch while PostgreSQL is down, setting nothing aside, then sets aside only the refused record', async () => {
    const { db, proxy, close } = await openHistoryThroughProxy(history.schema);
    try {
      await proxy.stop();
      writer = createHistoryWriter({ redis, db, streamKey, retryMs: 50, blockMs: 100 });
      writer.start();
      const event = fixtureEvent('bib-updated', { id: 'down-then-up' });
      await recorder.event(event);
      await recorder.attempt(deliveredAttempt(event, 1));
      await recorder.event(fixtureEvent('bib-updated', { id: 'ordinary-down' }));
      await new Promise((resolve) => setTimeout(resolve, 500));

      expect(writer.setAside()).toBe(0);
      expect(await writer.backlog()).toBe(3);
      expect(await eventRow(history.db, 'down-then-up')).toBeUndefined();

      await proxy.start();
      // The writer's backoff doubles from 50 ms while the database is down: at most 800 ms here.
      expect(await writtenWithin(history.db, 'ordinary-down', NEXT_EVENT_WITHIN_MS)).toBeDefined();
      expect(await eventRow(history.db, 'down-then-up')).toBeDefined();
      expect(writer.setAside()).toBe(1);
      expect((await listSetAside(history.db)).items).toHaveLength(1);
    } finally {
      await writer?.stop();
      writer = undefined;
      await close();
    }
  });
});
