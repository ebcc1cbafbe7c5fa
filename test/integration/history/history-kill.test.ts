import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { historyStreamKey, outboxBacklog } from '../../../src/history';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { startHttpReceiver } from '../../component/routes/support/http-receiver';
import { eventually } from '../../component/routes/support/route-events';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { TEST_HISTORY_KEY } from '../../helpers/history-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { enqueueRouteEvents, writeArchiveAndHookRoutes } from '../worker/support/route-burst';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

jest.setTimeout(240_000);

const EVENTS = 2000;
const CHILD = 'test/integration/worker/support/worker-child.ts';

/** The killed worker's concurrency: at most this many jobs were in flight when it died. */
const KILLED_IN_FLIGHT = 16;

describe('the history when the worker is killed mid-burst', () => {
  let dir: string;
  let queueName: string;
  let schema: string;
  let queue: Queue;
  let redis: Redis;
  let db: pg.Client;
  const children: ChildWorker[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-history-kill-'));
    queueName = uniqueQueueName('history-kill');
    schema = uniqueSchema('kill');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    redis = new Redis(TEST_REDIS_URL);
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) {
        child.child.kill('SIGKILL');
      }
      await child.exited();
    }
    await queue.close();
    for (const name of [
      queueName,
      ...['archive', 'indexer'].map((route) => routeQueueName(queueName, route)),
    ]) {
      await obliterateQueue(name);
    }
    const stream = historyStreamKey(queueName);
    await redis.del(stream, `${stream}:records`);
    redis.disconnect();
    await db.end();
    await dropSchema(schema);
    await rm(dir, { recursive: true, force: true });
  });

  async function archivedIds(): Promise<Set<string>> {
    const files = await readdir(join(dir, 'archive')).catch(() => [] as string[]);
    const ids = new Set<string>();
    for (const file of files) {
      const text = await readFile(join(dir, 'archive', file), 'utf8');
      // The line after the last newline may be one the route is still writing: not read yet.
      for (const line of text.split('\n').slice(0, -1)) {
        if (line !== '') ids.add((JSON.parse(line) as { id: string }).id);
      }
    }
    return ids;
  }

  const rows = async (sql: string): Promise<Record<string, unknown>[]> =>
    (await db.query<Record<string, unknown>>(sql.replaceAll('$schema', schema))).rows;

  it('loses and doubles no history row: each event once, each route delivered, no record twice', async () => {
    const receiver = await startHttpReceiver();
    try {
      const routesFile = await writeArchiveAndHookRoutes(dir);
      const events = await enqueueRouteEvents(queue, EVENTS);
      const env = {
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_NAME: queueName,
        SVC_BASE_URL: 'http://127.0.0.1:9',
        SVC_API_KEY: 'unused',
        RECORDS_DIR: join(dir, 'records'),
        WORKER_CONCURRENCY: String(KILLED_IN_FLIGHT),
        WORKER_METRICS_PORT: '0',
        ROUTES_FILE: routesFile,
        ARCHIVE_DIR: join(dir, 'archive'),
        HOOK: receiver.url,
        DATABASE_URL: TEST_DATABASE_URL,
        HISTORY_KEY: TEST_HISTORY_KEY,
        HISTORY_SCHEMA: schema,
        TEST_CLAIM_IDLE_MS: '2000',
      };

      const first = spawnWorker(CHILD, env);
      children.push(first);
      // Killed once part of the burst is delivered: its records are in the outbox, some written.
      await eventually(
        async () => (await archivedIds()).size >= 300,
        'part of the burst delivered',
        90_000,
      );
      first.child.kill('SIGKILL');
      await first.exited();
      expect((await archivedIds()).size).toBeLessThan(EVENTS);

      children.push(spawnWorker(CHILD, env));
      const wanted = events.map((event) => event.id);
      await eventually(
        async () => {
          const archived = await archivedIds();
          const indexed = new Set(receiver.accepted);
          return wanted.every((id) => archived.has(id) && indexed.has(id));
        },
        'every event at both destinations',
        120_000,
      );
      await eventually(
        async () =>
          (await outboxBacklog(redis, historyStreamKey(queueName))) === 0 &&
          Number(
            (
              await rows(
                `SELECT count(DISTINCT (event_id, route)) AS n FROM $schema.attempts WHERE outcome = 'delivered'`,
              )
            )[0]?.n,
          ) >=
            EVENTS * 2,
        'the history caught up',
        120_000,
      );

      const inEvents = await rows(
        'SELECT event_id, count(*)::int AS n FROM $schema.events GROUP BY event_id',
      );
      expect(inEvents.filter((row) => row.n !== 1)).toEqual([]);
      expect(new Set(inEvents.map((row) => row.event_id))).toEqual(new Set(wanted));
      const delivered = await rows(
        `SELECT event_id, array_agg(DISTINCT route ORDER BY route) AS routes FROM $schema.attempts
          WHERE outcome = 'delivered' GROUP BY event_id`,
      );
      expect(
        delivered.filter((row) => JSON.stringify(row.routes) !== '["archive","indexer"]'),
      ).toEqual([]);
      expect(delivered).toHaveLength(EVENTS);
      // A record written twice under two ids would show as two identical attempts.
      const doubled = await rows(
        `SELECT event_id, route, attempt, started_at, count(*)::int AS n FROM $schema.attempts
          GROUP BY event_id, route, attempt, started_at, outcome HAVING count(*) > 1`,
      );
      expect(doubled).toEqual([]);
      await expectEveryRunAccounted(rows, wanted);
    } finally {
      await receiver.close();
    }
  });
});

/**
 * The journey's steps after the kill: each event finished (a completed run), and a run with no end
 * recorded — the killed worker's — only where a later run of the job finished. An event may have
 * finished twice: a run killed after its end was recorded but before BullMQ marked the job
 * completed is run again (at least once), and the journey shows both runs, as they happened; only
 * the jobs in flight on the killed worker can be among them.
 */
async function expectEveryRunAccounted(
  rows: (sql: string) => Promise<Record<string, unknown>[]>,
  wanted: readonly string[],
): Promise<void> {
  const runs = `SELECT event_id, job_id, run, bool_or(taken_at IS NOT NULL) AS taken,
      bool_or(ended_at IS NOT NULL) AS ended, max(outcome) AS outcome
    FROM $schema.event_steps GROUP BY event_id, job_id, run`;
  const finished = await rows(
    `SELECT event_id, count(*)::int AS n FROM (${runs}) r WHERE outcome = 'completed' GROUP BY event_id`,
  );
  expect(finished.filter((row) => Number(row.n) > 1).length).toBeLessThanOrEqual(KILLED_IN_FLIGHT);
  expect(new Set(finished.map((row) => row.event_id))).toEqual(new Set(wanted));
  const unended = await rows(
    `SELECT u.event_id FROM (${runs}) u WHERE u.taken AND NOT u.ended AND NOT EXISTS (
       SELECT 1 FROM (${runs}) l WHERE l.event_id = u.event_id AND l.run > u.run AND l.ended)`,
  );
  expect(unended).toEqual([]);
}
