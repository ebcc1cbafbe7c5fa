import { Queue, Worker } from 'bullmq';
import { jobEndOutcome } from '../../helpers/job-end-outcome';
import { Redis } from 'ioredis';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { createRejectedStore } from '../../../src/events/rejected-store';
import { createHistoryRecorder } from '../../../src/history/create-history-recorder';
import type { HistoryRecorder } from '../../../src/history/create-history-recorder';
import { createHistoryWriter, outboxBacklog } from '../../../src/history/create-history-writer';
import { forgetPerson } from '../../../src/history/forget-person';
import { historyJourney } from '../../../src/history/history-journey';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import { listDayPartitions } from '../../../src/history/history-partitions';
import { readOutboxEntry } from '../../../src/history/outbox-entry';
import { pruneHistory } from '../../../src/history/prune-history';
import { previewReplay, replayHistory } from '../../../src/history/replay-history';
import { searchHistory } from '../../../src/history/search-history';
import type { HistoryContext } from '../../../src/history/search-history';
import { writeHistoryBatch } from '../../../src/history/write-history-batch';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { openTestHistory } from '../../helpers/history-database';
import { TEST_HISTORY_KEY, fixtureEvent } from '../../helpers/history-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

const keys = deriveHistoryKeys(TEST_HISTORY_KEY);

/** Runs a real worker over the queue until `count` jobs are completed or failed. */
async function settle(name: string, work: () => Promise<unknown>, count: number): Promise<void> {
  const worker = new Worker(name, work, { connection: { url: TEST_REDIS_URL } });
  let done = 0;
  await new Promise<void>((resolve) => {
    const one = (): void => {
      done += 1;
      if (done === count) resolve();
    };
    worker.on('completed', one);
    worker.on('failed', one);
  });
  await worker.close();
}
const DAY = 86_400_000;

describe('history search, journey, retention, forget and replay', () => {
  let redis: Redis;
  let queueName: string;
  let streamKey: string;
  let recorder: HistoryRecorder;
  let history: Awaited<ReturnType<typeof openTestHistory>>;
  let context: HistoryContext;

  const drain = async (): Promise<void> => {
    const writer = createHistoryWriter({ redis, db: history.db, streamKey });
    while ((await writer.drainOnce()) > 0);
  };
  const deliver = async (event: CanonicalEvent, route: string, outcome: 'delivered' | 'failed') =>
    recorder.attempt({
      event,
      route,
      attempt: 1,
      startedAt: new Date(),
      endedAt: new Date(),
      outcome,
      durationMs: 2,
    });

  beforeEach(async () => {
    redis = new Redis(TEST_REDIS_URL);
    queueName = uniqueQueueName('history-ops');
    streamKey = `${queueName}:history`;
    recorder = createHistoryRecorder({
      redis,
      streamKey,
      historyKey: TEST_HISTORY_KEY,
      bodies: 'all',
      maxBacklog: 10_000,
    });
    history = await openTestHistory('ops');
    context = { db: history.db, keys };
  });

  afterEach(async () => {
    await redis.del(streamKey, `${streamKey}:records`);
    redis.disconnect();
    await history.close();
    await obliterateQueue(queueName);
    await obliterateQueue(routeQueueName(queueName, 'indexer'));
  });

  it('finds events by each identifier, by code and by route outcome, newest first', async () => {
    const loan = fixtureEvent('loan-returned');
    const request = fixtureEvent('request-created');
    const item = fixtureEvent('item-updated');
    const job = fixtureEvent('job-end');
    const bib = fixtureEvent('bib-updated');
    for (const event of [loan, request, item, job, bib]) await recorder.event(event);
    await deliver(bib, 'indexer', 'failed');
    await deliver(item, 'indexer', 'delivered');
    await drain();
    const ids = async (filters: Parameters<typeof searchHistory>[1]) =>
      (await searchHistory(context, filters)).items.map((item) => item.eventId).sort();

    expect(await ids({ id: bib.id })).toEqual([bib.id]);
    expect(await ids({ user: 'S1004217' })).toEqual([loan.id, request.id].sort());
    expect(await ids({ user: 's1004217 ' })).toEqual([loan.id, request.id].sort());
    expect(await ids({ barcode: '39000123456' })).toEqual([loan.id, item.id].sort());
    expect(await ids({ mms: '991234570000561' })).toEqual([request.id]);
    expect(await ids({ loan: '23400112350000561' })).toEqual([loan.id]);
    expect(await ids({ request: '81234560000561' })).toEqual([request.id]);
    expect(await ids({ jobInstance: '5871043560000561' })).toEqual([job.id]);
    expect(await ids({ action: 'LOAN', event: 'LOAN_RETURNED' })).toEqual([loan.id]);
    expect(await ids({ route: 'indexer', outcome: 'failed' })).toEqual([bib.id]);
    expect(await ids({ route: 'indexer', outcome: 'delivered' })).toEqual([item.id]);
    expect(await ids({ institution: 'OTHER' })).toEqual([]);
  });

  it('pages newest first with a cursor, each event once', async () => {
    const base = Date.now() - 60_000;
    for (let i = 0; i < 7; i += 1) {
      await recorder.event(
        fixtureEvent('bib-updated', {
          id: `e${String(i)}`,
          receivedAt: new Date(base + i * 1000).toISOString(),
        }),
      );
    }
    await drain();
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await searchHistory(context, {
        limit: 3,
        ...(after === undefined ? {} : { after }),
      });
      seen.push(...page.items.map((item) => item.eventId));
      after = page.next;
    } while (after !== undefined);
    expect(seen).toEqual(['e6', 'e5', 'e4', 'e3', 'e2', 'e1', 'e0']);
  });

  it('shows an event’s journey in order', async () => {
    const event = fixtureEvent('job-end');
    await recorder.event(event);
    await recorder.outcome(
      jobEndOutcome(event, {
        outcome: 'downloaded',
        files: [{ path: 'records/x.xml', bytes: 1200, records: 25 }],
      }),
    );
    await deliver(event, 'indexer', 'delivered');
    await drain();
    const steps = await historyJourney(context, event.id, '01SVC_INST');
    expect(steps.map((step) => step.kind)).toEqual(['received', 'outcome', 'attempt']);
    expect(steps[1]).toMatchObject({
      files: [{ path: 'records/x.xml', bytes: 1200, records: 25 }],
    });
  });

  it('shows a recovered job_end queued once by the reconciliation, each take, and its steps in its day', async () => {
    const receivedAt = new Date(Date.now() - 3 * DAY);
    const base = fixtureEvent('job-end', { receivedAt: receivedAt.toISOString() });
    const meta = { format: 'json' as const, receivedAt: receivedAt.toISOString(), requestId: 'r' };
    const event: CanonicalEvent = { ...base, meta: { ...meta, recovered: true } };
    const at = (ms: number) => new Date(receivedAt.getTime() + ms);
    const run = (n: number, takenMs: number, endedMs: number, outcome: 'retrying' | 'failed') => [
      { event, step: 'taken' as const, jobId: 'job-1', run: n, at: at(takenMs), queuedAt: at(5) },
      { event, step: 'ended' as const, jobId: 'job-1', run: n, at: at(endedMs), outcome },
    ];
    await recorder.event(event);
    for (const step of [...run(1, 10, 20, 'retrying'), ...run(2, 30, 40, 'failed')]) {
      await recorder.step(step);
    }
    await drain();

    const steps = await historyJourney(context, event.id, '01SVC_INST');
    expect(steps.map((step) => step.kind)).toEqual([
      'received',
      'queued',
      'taken',
      'released',
      'taken',
      'finished',
    ]);
    expect(steps[1]).toEqual({
      at: at(5).toISOString(),
      kind: 'queued',
      by: 'reconciliation',
      jobId: 'job-1',
    });
    expect(steps[2]).toMatchObject({ run: 1, endedAt: at(20).toISOString() });
    expect(steps[3]).toMatchObject({ kind: 'released', run: 1, outcome: 'retrying' });
    expect(steps[5]).toMatchObject({ kind: 'finished', run: 2, outcome: 'failed' });
    // Written to the partition of the day the event was received, as its attempts are.
    const day = receivedAt.toISOString().slice(0, 10).replaceAll('-', '');
    const tables = await history.db.query<{ name: string }>(
      'SELECT DISTINCT tableoid::regclass::text AS name FROM event_steps',
    );
    expect(tables.rows.map((row) => row.name)).toEqual([`event_steps_other_p${day}`]);
  });

  it('drops exactly the partitions past their retention, patron ones sooner', async () => {
    const now = new Date();
    const at = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
    for (const days of [10, 8, 6]) {
      await recorder.event(
        fixtureEvent('loan-returned', { id: `loan-${String(days)}`, receivedAt: at(days) }),
      );
      await recorder.event(
        fixtureEvent('bib-updated', { id: `bib-${String(days)}`, receivedAt: at(days) }),
      );
    }
    await drain();
    const result = await pruneHistory(history.db, { days: 9, patronDays: 7 }, now);
    const remaining = (await searchHistory(context, {})).items.map((item) => item.eventId).sort();
    expect(remaining).toEqual(['bib-6', 'bib-8', 'loan-6']);
    expect(result.dropped.filter((name) => name.startsWith('events_'))).toHaveLength(3);
    const left = await listDayPartitions(history.db);
    expect(left.every((partition) => !result.dropped.includes(partition.name))).toBe(true);
  });

  it('forgets a person in the history, the outbox, the queues and the rejected store', async () => {
    const loan = fixtureEvent('loan-returned');
    const bib = fixtureEvent('bib-updated');
    await recorder.event(loan);
    await recorder.event(bib);
    await deliver(loan, 'indexer', 'delivered');
    await drain();
    const pending = fixtureEvent('request-created');
    await recorder.event(pending); // still in the outbox
    const events = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    const route = new Queue(routeQueueName(queueName, 'indexer'), {
      connection: { url: TEST_REDIS_URL },
    });
    const rejected = createRejectedStore({ redis, queueName, maxCount: 10, maxAgeHours: 1 });
    try {
      await events.add('loan', loan, { jobId: 'done-loan' });
      await events.add('bib', bib, { jobId: 'done-bib' });
      await route.add('loan', loan, { jobId: 'failed-loan' });
      await settle(events.name, async () => undefined, 2);
      await settle(route.name, () => Promise.reject(new Error('down')), 1);
      await rejected.keep({
        body: Buffer.from('{"item_loan":{"user_id":"S1004217"'),
        contentType: 'application/json',
        reason: 'bad json',
        status: 400,
        receivedAt: new Date(),
        requestId: 'r1',
      });
      const report = await forgetPerson(
        {
          db: history.db,
          keys,
          redis,
          streamKey,
          queues: [events, route],
          rejected,
          actor: 'test',
        },
        'S1004217',
      );
      expect(report).toMatchObject({
        historyEvents: 1,
        historyAttempts: 1,
        outboxRecords: 1,
        queueJobs: { [queueName]: 1, [routeQueueName(queueName, 'indexer')]: 1 },
        rejected: 1,
      });
      expect((await searchHistory(context, { user: 'S1004217' })).items).toEqual([]);
      expect((await searchHistory(context, {})).items.map((item) => item.eventId)).toEqual([
        bib.id,
      ]);
      expect(await events.getJob('done-bib')).toBeDefined();
      expect(await events.getJob('done-loan')).toBeUndefined();
      expect(await rejected.list()).toEqual([]);
      const audit = await history.db.query<{ action: string; target: string }>(
        'SELECT action, target FROM audit',
      );
      expect(audit.rows).toEqual([{ action: 'forget', target: keys.hashPerson('S1004217') }]);
    } finally {
      await events.close();
      await route.close();
    }
  });

  it('forgets a person inside a group of records, the others kept under their own ids', async () => {
    const request = fixtureEvent('request-created');
    const bib = fixtureEvent('bib-updated');
    // One tick: one outbox entry holding both events and the bib's attempt.
    await Promise.all([
      recorder.event(request),
      recorder.event(bib),
      deliver(bib, 'indexer', 'delivered'),
    ]);
    expect(await redis.xlen(streamKey)).toBe(1);
    // That group already written once (its writer died before its ACK).
    const [[id, fields] = ['', []]] = await redis.xrange(streamKey, '-', '+');
    await writeHistoryBatch(history.db, readOutboxEntry(id, fields).records, new Set());

    const report = await forgetPerson(
      { db: history.db, keys, redis, streamKey, actor: 'test' },
      'S1004217',
    );
    expect(report.outboxRecords).toBe(1);
    expect(await outboxBacklog(redis, streamKey)).toBe(2);
    await drain();
    expect((await searchHistory(context, {})).items.map((item) => item.eventId)).toEqual([bib.id]);
    const attempts = await history.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM attempts',
    );
    expect(attempts.rows[0]?.n).toBe(1);
    expect(await outboxBacklog(redis, streamKey)).toBe(0);
  });

  /** A route that takes every event (the mechanics of a replay, not its route's rule). */
  const every = () => true;

  it('replays exactly the matching events to one route, with new job ids', async () => {
    const bibs = [0, 1, 2].map((i) => fixtureEvent('bib-updated', { id: `bib-${String(i)}` }));
    const loan = fixtureEvent('loan-returned');
    for (const event of [...bibs, loan, fixtureEvent('item-updated')]) await recorder.event(event);
    await drain();
    const dry = await previewReplay(context, { action: 'bib' }, { takes: every, sampleSize: 2 });
    expect(dry.count).toBe(3);
    expect(dry.more).toBe(false);
    expect(dry.sample).toHaveLength(2);
    // A bounded count (the console's dry run) stops there and says more match.
    expect(
      await previewReplay(
        context,
        { action: 'bib' },
        { takes: every, sampleSize: 2, countAtMost: 2 },
      ),
    ).toMatchObject({
      count: 2,
      more: true,
    });
    expect(
      await previewReplay(
        context,
        { action: 'bib' },
        { takes: every, sampleSize: 2, countAtMost: 3 },
      ),
    ).toMatchObject({
      count: 3,
      more: false,
    });
    const queue = new Queue(routeQueueName(queueName, 'indexer'), {
      connection: { url: TEST_REDIS_URL },
    });
    try {
      await queue.add('bib', bibs[0], { jobId: 'evt-bib-0' }); // the original delivery
      const progress: number[] = [];
      const result = await replayHistory(
        context,
        { action: 'bib' },
        {
          queue,
          route: 'indexer',
          jobOptions: {},
          takes: every,
          ratePerSecond: 100,
          actor: 'test',
          onProgress: (p) => progress.push(p.queued),
        },
      );
      expect(result).toMatchObject({ queued: 3, skipped: 0 });
      expect(progress).toEqual([1, 2, 3]);
      const jobs = await queue.getJobs(['waiting']);
      const replayed = jobs.filter((job) => job.id?.includes('-replay-'));
      expect(replayed.map((job) => (job.data as CanonicalEvent).id).sort()).toEqual([
        'bib-0',
        'bib-1',
        'bib-2',
      ]);
      expect(replayed[0]?.data).toEqual(
        bibs.find((bib) => bib.id === (replayed[0]?.data as CanonicalEvent).id),
      );
      // A patron event's sealed body is opened for a replay.
      const patron = await replayHistory(
        context,
        { loan: '23400112350000561' },
        { queue, route: 'indexer', jobOptions: {}, takes: every, actor: 'test' },
      );
      expect(patron.queued).toBe(1);
      const audit = await history.db.query<{ count: number }>(
        "SELECT count FROM audit WHERE action = 'replay' ORDER BY at",
      );
      expect(audit.rows.map((row) => row.count)).toEqual([3, 1]);
      // Stopped by its signal (the console's shutdown): nothing more queued, the audit says so.
      const stopped = await replayHistory(
        context,
        { action: 'bib' },
        {
          queue,
          route: 'indexer',
          jobOptions: {},
          takes: every,
          actor: 'test',
          replayId: 'halted1',
          signal: AbortSignal.abort(),
        },
      );
      expect(stopped).toEqual({
        replayId: 'halted1',
        queued: 0,
        skipped: 0,
        leftOut: 0,
        stopped: true,
        capped: false,
      });
      const halted = await history.db.query<{ details: { stopped?: boolean } }>(
        "SELECT details FROM audit WHERE action = 'replay' AND details->>'replayId' = 'halted1'",
      );
      expect(halted.rows[0]?.details.stopped).toBe(true);
    } finally {
      await queue.close();
    }
  });
});
