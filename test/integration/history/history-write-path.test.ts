import { Redis } from 'ioredis';
import { createHistoryRecorder } from '../../../src/history/create-history-recorder';
import type { HistoryRecorder } from '../../../src/history/create-history-recorder';
import { createHistoryWriter, outboxBacklog } from '../../../src/history/create-history-writer';
import { readOutboxEntry } from '../../../src/history/outbox-entry';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import { HISTORY_MIGRATIONS } from '../../../src/history/history-migrations';
import { migrateHistory } from '../../../src/history/migrate-history';
import { openPgExecutor } from '../../../src/history/pg-executor';
import type { SqlExecutor } from '../../../src/history/sql-executor';
import { historyJourney } from '../../../src/history/history-journey';
import { writeHistoryBatch } from '../../../src/history/write-history-batch';
import type { StoredRecord } from '../../../src/history/write-history-batch';
import { HistoryRecord } from '../../../src/history/history-record';
import {
  TEST_DATABASE_URL,
  dropSchema,
  dumpSchemaText,
  openHistoryThroughProxy,
  openTestHistory,
  uniqueSchema,
} from '../../helpers/history-database';
import { TEST_HISTORY_KEY, fixtureEvent } from '../../helpers/history-events';
import { TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';
import { eventually } from '../../component/routes/support/route-events';
import { captureLogger } from '../../helpers/capture-logger';
import { Registry } from 'prom-client';
import { registerHistoryMetrics } from '../../../src/history/history-metrics';

const count = async (db: SqlExecutor, table: string): Promise<number> =>
  Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n);

describe('the history write path', () => {
  let redis: Redis;
  let streamKey: string;
  let recorder: HistoryRecorder;
  let history: Awaited<ReturnType<typeof openTestHistory>>;

  beforeEach(async () => {
    redis = new Redis(TEST_REDIS_URL);
    streamKey = `${uniqueQueueName('history')}:history`;
    recorder = createHistoryRecorder({
      redis,
      streamKey,
      historyKey: TEST_HISTORY_KEY,
      bodies: 'all',
      maxBacklog: 10_000,
    });
    history = await openTestHistory('write');
  });

  afterEach(async () => {
    await redis.del(streamKey, `${streamKey}:records`);
    redis.disconnect();
    await history.close();
  });

  it('records an event and each attempt: failing twice then delivering is three attempts', async () => {
    const event = fixtureEvent('bib-updated');
    await recorder.event(event);
    for (const [attempt, outcome] of [
      [1, 'retrying'],
      [2, 'retrying'],
      [3, 'delivered'],
    ] as const) {
      const startedAt = new Date();
      await recorder.attempt({
        event,
        route: 'indexer',
        attempt,
        startedAt,
        endedAt: new Date(startedAt.getTime() + 5),
        outcome,
        ...(outcome === 'retrying' ? { status: 503, error: 'HTTP 503' } : { status: 200 }),
        durationMs: 5,
      });
    }
    const writer = createHistoryWriter({ redis, db: history.db, streamKey });
    expect(await writer.drainOnce()).toBe(4);
    expect(await count(history.db, 'events')).toBe(1);
    const attempts = await history.db.query<{ attempt: number; outcome: string }>(
      'SELECT attempt, outcome FROM attempts ORDER BY attempt',
    );
    expect(attempts.rows).toEqual([
      { attempt: 1, outcome: 'retrying' },
      { attempt: 2, outcome: 'retrying' },
      { attempt: 3, outcome: 'delivered' },
    ]);
    expect(await writer.backlog()).toBe(0);
  });

  it('keeps no patron identifier or name in clear in any table, nor in the outbox', async () => {
    const events = ['user-updated', 'loan-returned', 'request-created', 'notification'].map(
      (name, i) => fixtureEvent(name, { id: `p-${String(i)}` }),
    );
    for (const event of events) {
      await recorder.event(event);
      await recorder.attempt({
        event,
        route: 'circ',
        attempt: 1,
        startedAt: new Date(),
        endedAt: new Date(),
        outcome: 'failed',
        status: 404,
        error: 'POST https://circ.example.org/users/S1004217/loans: 404',
        durationMs: 3,
      });
    }
    const secrets = ['S1004217', 'Amara', 'Okafor', 'amara@example.org', '2100042', 'River Road'];
    const outbox = JSON.stringify(await redis.xrange(streamKey, '-', '+'));
    for (const secret of secrets) expect(outbox.toLowerCase()).not.toContain(secret.toLowerCase());

    await createHistoryWriter({ redis, db: history.db, streamKey }).drainOnce();
    expect(await count(history.db, 'events')).toBe(4);
    const dump = (await dumpSchemaText(history.db)).toLowerCase();
    expect(dump).toContain('39000123456'); // an item barcode is not personal: kept in clear
    for (const secret of secrets) expect(dump).not.toContain(secret.toLowerCase());
    // The user id is there as its keyed hash, which a search can match.
    expect(dump).toContain(deriveHistoryKeys(TEST_HISTORY_KEY).hashPerson('S1004217'));
  });

  it('stores a patron body sealed, and it opens back to the event', async () => {
    const event = fixtureEvent('loan-returned');
    await recorder.event(event);
    await createHistoryWriter({ redis, db: history.db, streamKey }).drainOnce();
    const row = await history.db.query<{ body: unknown; sealed: string }>(
      "SELECT body, encode(body_sealed, 'base64') AS sealed FROM events",
    );
    expect(row.rows[0]?.body).toBeNull();
    const keys = deriveHistoryKeys(TEST_HISTORY_KEY);
    const opened = keys.unseal(
      Buffer.from(row.rows[0]?.sealed ?? '', 'base64'),
      `01SVC_INST\u0000${event.id}`,
    );
    expect(JSON.parse(opened.toString())).toEqual(event);
  });

  it('applies the migrations once when two processes run them at the same time', async () => {
    const schema = uniqueSchema('migrate');
    const a = openPgExecutor({ url: TEST_DATABASE_URL, schema });
    const b = openPgExecutor({ url: TEST_DATABASE_URL, schema });
    try {
      const [first, second] = await Promise.all([migrateHistory(a), migrateHistory(b)]);
      const versions = HISTORY_MIGRATIONS.map((migration) => migration.version);
      expect([...first.applied, ...second.applied]).toEqual(versions);
      expect(first.current).toBe(Math.max(...versions));
      expect(second.current).toBe(Math.max(...versions));
      expect(await count(a, 'schema_migrations')).toBe(versions.length);
    } finally {
      await a.close();
      await b.close();
      await dropSchema(schema);
    }
  });

  it('keeps records in Redis while PostgreSQL is unreachable and writes all of them after', async () => {
    const { db, proxy, close } = await openHistoryThroughProxy(history.schema);
    const writer = createHistoryWriter({ redis, db, streamKey, retryMs: 50, blockMs: 100 });
    try {
      await proxy.stop();
      writer.start();
      for (let i = 0; i < 50; i += 1) {
        expect(
          await recorder.event(fixtureEvent('item-updated', { id: `down-${String(i)}` })),
        ).toBe(true);
      }
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await writer.backlog()).toBe(50);
      expect(await count(history.db, 'events')).toBe(0);
      await proxy.start();
      const deadline = Date.now() + 15_000;
      while ((await count(history.db, 'events')) < 50 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await count(history.db, 'events')).toBe(50);
      expect(await writer.backlog()).toBe(0);
    } finally {
      await writer.stop();
      await close();
    }
  });

  it('loses and doubles nothing when a writer dies after reading a batch, before its ACK', async () => {
    for (let i = 0; i < 30; i += 1) {
      const event = fixtureEvent('bib-updated', { id: `k-${String(i)}` });
      await recorder.event(event);
      await recorder.attempt({
        event,
        route: 'r',
        attempt: 1,
        startedAt: new Date(),
        endedAt: new Date(),
        outcome: 'delivered',
        durationMs: 1,
      });
    }
    await redis.xgroup('CREATE', streamKey, 'history-writer', '0', 'MKSTREAM');
    // The dead writer read 40 records and committed them, but never acknowledged them.
    const read = (await redis.call(
      'XREADGROUP',
      'GROUP',
      'history-writer',
      'dead',
      'COUNT',
      40,
      'STREAMS',
      streamKey,
      '>',
    )) as [string, [string, string[]][]][];
    const entries = read[0]?.[1] ?? [];
    const batch = entries.map(([id, fields]) => ({
      id,
      record: HistoryRecord.parse(JSON.parse(fields[1] ?? '')),
    }));
    await writeHistoryBatch(history.db, batch.slice(0, 40), new Set());

    const survivor = createHistoryWriter({ redis, db: history.db, streamKey, claimIdleMs: 0 });
    while ((await survivor.drainOnce()) > 0);
    expect(await count(history.db, 'events')).toBe(30);
    expect(await count(history.db, 'attempts')).toBe(30);
    expect(await survivor.backlog()).toBe(0);
  });

  it('appends the records of one tick in one entry, and writes each once even when written twice', async () => {
    const events = Array.from({ length: 10 }, (_, i) =>
      fixtureEvent('bib-updated', { id: `g-${String(i)}` }),
    );
    const kept = await Promise.all(
      events.flatMap((event) => [
        recorder.event(event),
        ...[1, 2].map((attempt) =>
          recorder.attempt({
            event,
            route: 'r',
            attempt,
            startedAt: new Date(),
            endedAt: new Date(),
            outcome: attempt === 1 ? 'retrying' : 'delivered',
            durationMs: 1,
          }),
        ),
      ]),
    );
    expect(kept.every(Boolean)).toBe(true);
    expect(await redis.xlen(streamKey)).toBe(1);
    expect(await outboxBacklog(redis, streamKey)).toBe(30);
    // A writer that committed the group and died before its ACK: the next one writes it again.
    const [[id, fields] = ['', []]] = await redis.xrange(streamKey, '-', '+');
    await writeHistoryBatch(history.db, readOutboxEntry(id, fields).records, new Set());
    const writer = createHistoryWriter({ redis, db: history.db, streamKey });
    while ((await writer.drainOnce()) > 0);
    expect(await count(history.db, 'events')).toBe(10);
    expect(await count(history.db, 'attempts')).toBe(20);
    expect(await outboxBacklog(redis, streamKey)).toBe(0);
  });

  it('lets records wait while the deliveries are behind, and writes them once not, or once old', async () => {
    await recorder.event(fixtureEvent('bib-updated', { id: 'deferred-1' }));
    let behind = true;
    let asked = 0;
    const busy = (): Promise<boolean> => {
      asked += 1;
      return Promise.resolve(behind);
    };
    const writer = createHistoryWriter({ redis, db: history.db, streamKey, busy, blockMs: 100 });
    writer.start();
    try {
      await eventually(() => asked >= 3, 'the writer asking about the deliveries three times');
      expect(await count(history.db, 'events')).toBe(0);
      behind = false;
      await eventually(async () => (await count(history.db, 'events')) === 1, 'the record written');
    } finally {
      await writer.stop();
    }
    // Always behind: a record older than maxDeferMs is written all the same.
    await recorder.event(fixtureEvent('bib-updated', { id: 'deferred-2' }));
    const patient = createHistoryWriter({
      redis,
      db: history.db,
      streamKey,
      busy: () => Promise.resolve(true),
      maxDeferMs: 300,
      blockMs: 100,
    });
    patient.start();
    try {
      await eventually(
        async () => (await count(history.db, 'events')) === 2,
        'the old record written',
      );
    } finally {
      await patient.stop();
    }
  });

  it('drops and counts records past the backlog bound instead of filling Redis', async () => {
    const small = createHistoryRecorder({
      redis,
      streamKey,
      historyKey: TEST_HISTORY_KEY,
      bodies: 'none',
      maxBacklog: 3,
    });
    const results = [];
    for (let i = 0; i < 5; i += 1)
      results.push(await small.event(fixtureEvent('bib-updated', { id: `b-${String(i)}` })));
    expect(results).toEqual([true, true, true, false, false]);
    expect(small.dropped()).toBe(2);
    expect(await redis.xlen(streamKey)).toBe(3);
  });

  it('logs and counts an event whose record cannot be made, naming no value of it', async () => {
    const log = captureLogger();
    const registry = new Registry();
    const careful = createHistoryRecorder({
      redis,
      streamKey,
      historyKey: TEST_HISTORY_KEY,
      bodies: 'all',
      maxBacklog: 10,
      logger: log.logger,
    });
    registerHistoryMetrics(registry, {
      backlog: () => outboxBacklog(redis, streamKey),
      dropped: careful.dropped,
    });
    const loan = fixtureEvent('loan-created');
    // A value JSON cannot hold whose error quotes the patron: the sealed body cannot be made.
    const hostile = {
      ...loan,
      note: {
        toJSON: () => {
          throw new RangeError('cannot hold u-42');
        },
      },
    };

    expect(await careful.event(hostile)).toBe(false);

    expect(careful.dropped()).toBe(1);
    expect(await registry.getSingleMetricAsString('svcws_history_dropped_total')).toMatch(
      /svcws_history_dropped_total 1$/m,
    );
    expect(await redis.xlen(streamKey)).toBe(0);
    const line = log.lines().find((one) => one.msg === 'history record could not be made: dropped');
    expect(line).toMatchObject({ eventId: loan.id, action: 'loan', errorType: 'RangeError' });
    expect(log.text()).not.toMatch(/u-42|cannot hold/);
  });

  it('writes a run taken and ended in one batch as one row, in two batches as two, never doubled', async () => {
    const event = fixtureEvent('loan-created');
    const received = Date.parse(event.meta?.receivedAt ?? '');
    const ids = { patron: true, eventReceivedAt: new Date(received).toISOString() };
    const base = { ...ids, institution: '01SVC_INST', eventId: event.id, jobId: 'job-1' };
    const at = (ms: number) => new Date(received + ms).toISOString();
    const record = (
      id: string,
      step: 'taken' | 'ended',
      run: number,
      ms: number,
    ): StoredRecord => ({
      id,
      record:
        step === 'taken'
          ? { type: 'step', step, ...base, run, at: at(ms), queuedAt: at(1) }
          : {
              type: 'step',
              step,
              ...base,
              run,
              at: at(ms),
              outcome: run === 1 ? 'retrying' : 'completed',
            },
    });
    await recorder.event(event);
    await createHistoryWriter({ redis, db: history.db, streamKey }).drainOnce();
    const known = new Set<string>();
    // Run 1 taken and ended in one batch, written twice; run 2's take and end in two batches.
    const one = [record('1-0', 'taken', 1, 2), record('1-1', 'ended', 1, 5)];
    await writeHistoryBatch(history.db, one, known);
    await writeHistoryBatch(history.db, one, known);
    await writeHistoryBatch(history.db, [record('2-0', 'taken', 2, 10)], known);
    await writeHistoryBatch(history.db, [record('3-0', 'ended', 2, 20)], known);

    expect(await count(history.db, 'event_steps')).toBe(3);
    const steps = await historyJourney(
      { db: history.db, keys: deriveHistoryKeys(TEST_HISTORY_KEY) },
      event.id,
    );
    expect(steps.map((step) => [step.kind, step.at])).toEqual([
      ['received', at(0)],
      ['queued', at(1)],
      ['taken', at(2)],
      ['released', at(5)],
      ['taken', at(10)],
      ['finished', at(20)],
    ]);
    expect(steps[4]).toMatchObject({ run: 2, endedAt: at(20) });
  });
});
