import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { WorkerConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox } from '@svcws/sandbox';
import { deriveHistoryKeys, historyJourney, historyStreamKey } from '../../../src/history';
import type { JourneyStep, SqlExecutor } from '../../../src/history';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import { eventually } from '../../component/routes/support/route-events';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { TEST_REDIS_URL } from '../../helpers/redis';

const HISTORY_KEY = 'job-end-history-key-of-at-least-32-characters';

describe('the history of a job_end handled by the worker process', () => {
  const schema = uniqueSchema('jobend');
  let running: RunningSandbox;
  let listener: ListenerUnderTest;
  let server: Server;
  let worker: WorkerProcess;
  let connection: ReturnType<typeof openWorkerConnection>;
  let recordsDir: string;
  let db: SqlExecutor | undefined;

  afterEach(async () => {
    await worker.close();
    const redis = new Redis(TEST_REDIS_URL);
    await redis.del(historyStreamKey(listener.queueName));
    redis.disconnect();
    await closeRedis(connection);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener.close();
    await running.close();
    await db?.close();
    await dropSchema(schema);
    await rm(recordsDir, { recursive: true, force: true });
  });

  it('records the records file a job_end stored: path, bytes and record count', async () => {
    running = await createSandbox({
      logger: createLogger({ level: 'silent', name: 'sandbox' }),
      config: { SANDBOX_JOB_DURATION_MS: 0 },
    }).start(0);
    listener = listenerUnderTest();
    server = listener.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const listenerUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/webhooks`;
    recordsDir = await mkdtemp(join(tmpdir(), 'svc-history-records-'));
    const log = captureLogger();
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
    worker = createWorkerProcess({
      connection,
      config: WorkerConfig.parse({
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_NAME: listener.queueName,
        SVC_BASE_URL: running.url,
        SVC_API_KEY: 'sandbox-key',
        RECORDS_DIR: recordsDir,
        DATABASE_URL: TEST_DATABASE_URL,
        HISTORY_KEY,
        HISTORY_SCHEMA: schema,
      }),
      logger: log.logger,
      env: {},
      historyOptions: { openRetryMs: 100, writer: { retryMs: 100, blockMs: 100 } },
    });
    const admin = (path: string, body: unknown) =>
      fetch(`${running.url}/sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await admin('/webhooks', { url: listenerUrl, secret: TEST_SECRET })).status).toBe(201);
    const run = (await (
      await admin('/jobs/S7781/run', { records: 40, duration_ms: 0 })
    ).json()) as { job_instance: { id: string } };
    const instanceId = run.job_instance.id;
    const file = join(recordsDir, '01SVC_INST', 'S7781', instanceId, 'TOTAL_RECORDS_IMPORTED.xml');

    let eventId: string | undefined;
    await eventually(() => {
      const line = log.lines().find((candidate) => candidate.msg === 'job_end: records stored');
      eventId = typeof line?.eventId === 'string' ? line.eventId : undefined;
      return eventId !== undefined;
    }, 'the records stored');
    db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema, migrate: false });
    const context = { db: db as SqlExecutor, keys: deriveHistoryKeys(HISTORY_KEY) };
    let steps: JourneyStep[] = [];
    await eventually(
      async () => {
        steps = await historyJourney(context, eventId ?? '').catch(() => []);
        return steps.some((step) => step.kind === 'finished');
      },
      'the job_end outcome and the end of its processing in the history',
      20_000,
    );

    expectEveryStep(steps);
    expect(steps[3]).toMatchObject({
      kind: 'outcome',
      outcome: 'stored',
      subjectId: instanceId,
      error: null,
      files: [{ path: file, bytes: expect.any(Number) as number, records: 40 }],
    });
    expect(steps[3]?.kind === 'outcome' && steps[3].counters).toEqual(expect.any(Object));
  });
});

/** A job_end's outcome between the worker's take and the end of its processing, times in order. */
function expectEveryStep(steps: JourneyStep[]): void {
  expect(steps.map((step) => step.kind)).toEqual([
    'received',
    'queued',
    'taken',
    'outcome',
    'finished',
  ]);
  const times = steps.map((step) => Date.parse(step.at));
  expect(times).toEqual([...times].sort((x, y) => x - y));
  expect(steps[1]).toMatchObject({ kind: 'queued', by: 'listener' });
  expect(steps[4]).toMatchObject({ kind: 'finished', outcome: 'completed', run: 1 });
}
