import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { historyStreamKey, outboxBacklog } from '../../../src/history';
import { eventually } from '../../component/routes/support/route-events';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { TEST_HISTORY_KEY } from '../../helpers/history-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { enqueueRouteEvents } from './support/route-burst';
import { spawnWorker } from './support/child-process';
import type { ChildWorker } from './support/child-process';

/** pino's warn is 40, error 50, fatal 60. */
const WARN = 40;

describe('the worker (src/bin/worker.ts) with history on, stopped by SIGTERM', () => {
  let queueName: string;
  let schema: string;
  let queue: Queue;
  let redis: Redis;
  let db: pg.Client;
  let worker: ChildWorker | undefined;

  beforeEach(async () => {
    queueName = uniqueQueueName('clean-stop');
    schema = uniqueSchema('stop');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    redis = new Redis(TEST_REDIS_URL);
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });

  afterEach(async () => {
    if (worker?.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill('SIGKILL');
    }
    await worker?.exited();
    await queue.close();
    await obliterateQueue(queueName);
    const stream = historyStreamKey(queueName);
    await redis.del(stream, `${stream}:records`);
    redis.disconnect();
    await db.end();
    await dropSchema(schema);
  });

  const startWorker = async (): Promise<ChildWorker> => {
    worker = spawnWorker('src/bin/worker.ts', {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'unused',
      WORKER_METRICS_PORT: '0',
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY: TEST_HISTORY_KEY,
      HISTORY_SCHEMA: schema,
    });
    await worker.waitForLine((line) => line.msg === 'history writer started');
    return worker;
  };
  const eventRows = async (): Promise<number> =>
    Number((await db.query(`SELECT count(*) AS n FROM ${schema}.events`)).rows[0]?.n);
  const warnings = (child: ChildWorker): unknown[] =>
    child.lines().filter((line) => Number(line.level) >= WARN);

  it('exits 0 with no warning once its writer has drained the outbox and waits for more', async () => {
    const child = await startWorker();
    await enqueueRouteEvents(queue, 20);
    await eventually(async () => (await eventRows()) === 20, 'the history written', 60_000);

    child.child.kill('SIGTERM');

    expect(await child.exited()).toBe(0);
    expect(warnings(child)).toEqual([]);
    expect(child.lines().at(-1)?.msg).toBe('stopped');
  });

  it('exits 0 with no warning while records are being written, and loses none of them', async () => {
    const child = await startWorker();
    await enqueueRouteEvents(queue, 200);
    await eventually(async () => (await eventRows()) > 0, 'the first records written', 60_000);

    child.child.kill('SIGTERM');

    expect(await child.exited()).toBe(0);
    expect(warnings(child)).toEqual([]);
    // Every event the worker finished has its record written or waiting in the outbox for the
    // next worker: stopping drops none.
    const finished = await queue.getCompletedCount();
    const written = await eventRows();
    const waiting = await outboxBacklog(redis, historyStreamKey(queueName));
    expect(written).toBeGreaterThan(0);
    expect(written + waiting).toBeGreaterThanOrEqual(finished);
  });
});
