import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { normalizeEvent } from '../src/events/normalize-event';
import { parseJsonEvent } from '../src/events/parse-json-event';
import { createHistoryRecorder } from '../src/history/create-history-recorder';
import { createHistoryWriter } from '../src/history/create-history-writer';
import { historyJourney } from '../src/history/history-journey';
import { deriveHistoryKeys } from '../src/history/history-keys';
import {
  dropPartitions,
  ensureDayPartitions,
  listDayPartitions,
} from '../src/history/history-partitions';
import { openHistoryDatabase } from '../src/history/open-history-database';
import { searchHistory } from '../src/history/search-history';
import type { HistoryContext } from '../src/history/search-history';
import type { SqlExecutor } from '../src/history/sql-executor';
import { NOT_PINNED } from './ingress/cores';
import { benchRedis } from './ingress/private-redis';
import { benchPostgres } from './routing/bench-postgres';

/**
 * `npm run bench -- history`: the history's write and read paths, each figure against its target
 * (docs/history.md), on a PostgreSQL and a Redis of the bench's own (routing/bench-postgres.ts,
 * ingress/private-redis.ts; BENCH_DATABASE_URL and BENCH_REDIS_URL name given ones instead). Runs
 * in a schema of its own, dropped at the end.
 */
const INGEST_EVENTS = Number(process.env.HISTORY_BENCH_INGEST ?? 20_000);
const LOADED_EVENTS = Number(process.env.HISTORY_BENCH_EVENTS ?? 1_000_000);
const DAYS = 10;
const KEY = 'bench-history-key-0123456789abcdef0123';

function line(name: string, value: string, target: string, ok: boolean): void {
  process.stdout.write(
    `${name.padEnd(52)} ${value.padStart(14)}   target ${target.padEnd(12)} ${ok ? 'ok' : 'MISSED'}\n`,
  );
}

function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? Number.NaN;
}

async function timeEach(runs: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await work(i);
    samples.push(performance.now() - start);
  }
  return p95(samples);
}

const BIB = normalizeEvent(
  parseJsonEvent(
    JSON.stringify({
      id: '1',
      action: 'BIB',
      time: '2024-11-07T10:00:00Z',
      institution: { value: '01BENCH' },
      event: { value: 'BIB_UPDATED' },
      bib: {
        mms_id: '991',
        title: 'A history of rivers',
        link: 'https://svc.example.org/bibs/991',
      },
    }),
  ),
);

/** `into` names the tables' state in the figure's label (empty, or the loaded million). */
async function ingest(db: SqlExecutor, redis: Redis, into: string): Promise<void> {
  const streamKey = `bench-history-${randomUUID().slice(0, 8)}`;
  const recorder = createHistoryRecorder({
    redis,
    streamKey,
    historyKey: KEY,
    bodies: 'all',
    maxBacklog: 10_000_000,
  });
  const start = performance.now();
  for (let i = 0; i < INGEST_EVENTS; i += 100) {
    await Promise.all(
      Array.from({ length: 100 }, async (_, j) => {
        const event = {
          ...BIB,
          id: `ing-${into.replace(/\W/g, '')}-${String(i + j)}`,
          meta: { format: 'json' as const, receivedAt: new Date().toISOString(), requestId: 'r' },
        };
        await recorder.event(event);
        for (const attempt of [1, 2]) {
          await recorder.attempt({
            event,
            route: 'indexer',
            attempt,
            startedAt: new Date(),
            endedAt: new Date(),
            outcome: attempt === 1 ? 'retrying' : 'delivered',
            durationMs: 3,
          });
        }
      }),
    );
  }
  const recordSeconds = (performance.now() - start) / 1000;
  const writer = createHistoryWriter({ redis, db, streamKey, batchSize: 1000 });
  const drainStart = performance.now();
  while ((await writer.drainOnce()) > 0);
  const drainSeconds = (performance.now() - drainStart) / 1000;
  await redis.del(streamKey, `${streamKey}:records`);
  line(
    `recorder: events/s into the outbox (${into})`,
    (INGEST_EVENTS / recordSeconds).toFixed(0),
    '-',
    true,
  );
  const rate = INGEST_EVENTS / drainSeconds;
  line(
    `history ingest, 2 attempts each (${into}): events/s`,
    rate.toFixed(0),
    '>= 5,000/s',
    rate >= 5000,
  );
}

/** 1,000,000 events and 2,000,000 attempts over ten days, 30 % about patrons, in SQL. */
export async function load(db: SqlExecutor): Promise<void> {
  const now = Date.now();
  const days = Array.from({ length: DAYS }, (_, i) =>
    new Date(now - i * 86_400_000).toISOString().slice(0, 10),
  );
  await ensureDayPartitions(db, days);
  const start = performance.now();
  const per = LOADED_EVENTS / DAYS;
  for (let d = 0; d < DAYS; d += 1) {
    await db.query(
      `INSERT INTO events (patron, received_at, institution, event_id, action, event_code, platform_time,
         user_keys, barcodes, mms_ids, loan_ids, request_ids, job_instance_ids, body, body_sealed)
       SELECT i % 10 < 3, now() - make_interval(days => $1::int, secs => (i % 86000)::float8 / 10),
         CASE WHEN i % 4 = 0 THEN '01OTHER' ELSE '01BENCH' END, 'ev' || i,
         (ARRAY['loan','bib','item','request','user','job_end'])[1 + i % 6], 'CODE_' || (i % 6), '2024-11-07T10:00:00Z',
         CASE WHEN i % 10 < 3 THEN ARRAY[md5('user' || (i % 50000))] ELSE '{}' END,
         ARRAY['39' || (i % 400000)], ARRAY['99' || (i % 200000)],
         CASE WHEN i % 6 = 0 THEN ARRAY['L' || i] ELSE '{}' END,
         CASE WHEN i % 6 = 3 THEN ARRAY['R' || i] ELSE '{}' END, '{}',
         CASE WHEN i % 10 < 3 THEN NULL ELSE jsonb_build_object('id', 'ev' || i, 'action', 'bib',
           'bib', jsonb_build_object('mms_id', '99' || (i % 200000), 'title', 'A title of some length ' || i,
           'link', 'https://svc.example.org/svcws/v1/bibs/99' || (i % 200000))) END,
         CASE WHEN i % 10 < 3 THEN decode(repeat(md5(i::text), 8), 'hex') ELSE NULL END
       FROM generate_series($2::int, $3::int) AS i`,
      [d, d * per, (d + 1) * per - 1],
    );
    await db.query(
      `INSERT INTO attempts (patron, event_received_at, record_id, institution, event_id, route, attempt,
         started_at, ended_at, outcome, status, duration_ms)
       SELECT e.patron, e.received_at, e.event_id || '-' || n, e.institution, e.event_id, 'indexer', n,
         e.received_at, e.received_at + interval '5 ms', CASE WHEN n = 1 THEN 'retrying' ELSE 'delivered' END,
         CASE WHEN n = 1 THEN 503 ELSE 200 END, 5
       FROM events e, generate_series(1, 2) AS n
       WHERE e.received_at >= $1::date AND e.received_at < $1::date + 1`,
      [days[d]],
    );
  }
  // What autovacuum does to a loaded table: statistics, and the GIN index's pending list merged.
  await db.query('VACUUM ANALYZE events');
  await db.query('VACUUM ANALYZE attempts');
  const seconds = (performance.now() - start) / 1000;
  line(
    `load: ${String(LOADED_EVENTS)} events + ${String(LOADED_EVENTS * 2)} attempts (s)`,
    seconds.toFixed(1),
    '-',
    true,
  );
}

function md5Hex(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

async function queries(db: SqlExecutor): Promise<void> {
  const context: HistoryContext = { db, keys: deriveHistoryKeys(KEY) };
  const pick = (i: number) => Math.floor((i * 7919) % LOADED_EVENTS);
  const barcode = await timeEach(200, (i) =>
    searchHistory(context, { barcode: `39${String(pick(i) % 400000)}`, limit: 50 }),
  );
  line('search by barcode p95 (ms)', barcode.toFixed(1), '< 20 ms', barcode < 20);
  // The load stores md5('user' || n) as the user keys: the same search, with that as its hash.
  const md5Keys = { ...context.keys, hashPerson: (id: string) => md5Hex(`user${id}`) };
  const user = await timeEach(200, (i) =>
    searchHistory({ ...context, keys: md5Keys }, { user: String(pick(i) % 50000), limit: 50 }),
  );
  line('search by user hash p95 (ms)', user.toFixed(1), '< 20 ms', user < 20);
  const byId = await timeEach(200, (i) => searchHistory(context, { id: `ev${String(pick(i))}` }));
  line('search by event id p95 (ms)', byId.toFixed(1), '< 20 ms', byId < 20);
  const newest = await timeEach(100, (i) =>
    searchHistory(context, {
      institution: '01BENCH',
      action: ['loan', 'bib', 'item'][i % 3] ?? 'bib',
      limit: 50,
    }),
  );
  line('newest 50, institution + action p95 (ms)', newest.toFixed(1), '< 50 ms', newest < 50);
  const journey = await timeEach(200, (i) => historyJourney(context, `ev${String(pick(i))}`));
  line('journey p95 (ms)', journey.toFixed(1), '< 20 ms', journey < 20);
}

async function sizes(db: SqlExecutor): Promise<void> {
  const result = await db.query<{ bytes: string }>(
    `SELECT sum(pg_total_relation_size(c.oid))::text AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r'
        AND (c.relname LIKE 'events\\_%' OR c.relname LIKE 'attempts\\_%')`,
  );
  const perMillion = Number(result.rows[0]?.bytes ?? 0) / (LOADED_EVENTS / 1_000_000) / 1024 ** 3;
  line('table + index size per million events (GiB)', perMillion.toFixed(2), 'report', true);
  const partitions = await listDayPartitions(db);
  const oldest = partitions[0]?.day;
  const day = partitions.filter((partition) => partition.day === oldest);
  const start = performance.now();
  await dropPartitions(db, day);
  const ms = performance.now() - start;
  line(
    `drop one day's partitions (${String(day.length)} tables, ms)`,
    ms.toFixed(0),
    '< 1000 ms',
    ms < 1000,
  );
}

export async function run(): Promise<void> {
  const postgres = await benchPostgres();
  const server = await benchRedis(NOT_PINNED);
  try {
    await runOn(postgres.url, server.url);
  } finally {
    await server.stop();
    await postgres.stop();
  }
}

async function runOn(databaseUrl: string, redisUrl: string): Promise<void> {
  const schema = `bench_history_${randomUUID().slice(0, 8)}`;
  const db = await openHistoryDatabase({ url: databaseUrl, schema });
  if (db === undefined) throw new Error('no database');
  const redis = new Redis(redisUrl);
  try {
    await ingest(db, redis, 'empty tables');
    await load(db);
    // The same ingest into the loaded tables: their indexes are large, as in production.
    await ingest(db, redis, `${String(LOADED_EVENTS / 1_000_000)}M loaded`);
    await queries(db);
    await sizes(db);
  } finally {
    redis.disconnect();
    await db.close();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
