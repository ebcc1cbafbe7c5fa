import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox } from '@svcws/sandbox';
import type { RunningWorker } from '../../../src/worker/create-worker';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import { captureLogger } from '../../helpers/capture-logger';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { TEST_REDIS_URL } from '../../helpers/redis';

describe('end to end: platform → listener → queue → worker → records on disk', () => {
  let running: RunningSandbox;
  let listener: ListenerUnderTest;
  let server: Server;
  let worker: RunningWorker;
  let connection: ReturnType<typeof openWorkerConnection>;
  let recordsDir: string;

  afterEach(async () => {
    await worker.close();
    await closeRedis(connection);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener.close();
    await running.close();
    await rm(recordsDir, { recursive: true, force: true });
  });

  it('stores the records of an import run announced by a signed job_end webhook', async () => {
    const sandbox = createSandbox({
      logger: createLogger({ level: 'silent', name: 'sandbox' }),
      config: { SANDBOX_JOB_DURATION_MS: 0 },
    });
    running = await sandbox.start(0);
    listener = listenerUnderTest();
    server = listener.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const listenerUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/webhooks`;
    recordsDir = await mkdtemp(join(tmpdir(), 'svc-records-'));
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
      }),
      logger: log.logger,
      env: {},
    });
    const admin = (path: string, body: unknown) =>
      fetch(`${running.url}/sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // The sandbox checks the listener with the challenge before it registers it (spec §6.1).
    expect((await admin('/webhooks', { url: listenerUrl, secret: TEST_SECRET })).status).toBe(201);

    const run = (await (
      await admin('/jobs/S7781/run', { records: 120, duration_ms: 0 })
    ).json()) as {
      job_instance: { id: string };
    };
    const instanceId = run.job_instance.id;
    const file = join(recordsDir, '01SVC_INST', 'S7781', instanceId, 'TOTAL_RECORDS_IMPORTED.xml');
    const summary = await new Promise<Record<string, unknown>>((resolve) => {
      const poll = setInterval(() => {
        const line = log.lines().find((candidate) => candidate.msg === 'job_end: records stored');
        if (line) {
          clearInterval(poll);
          resolve(line);
        }
      }, 20);
    });

    expect(summary).toMatchObject({
      instanceId,
      platformJobId: 'S7781',
      records: 120,
      file,
      apiCalls: 2,
    });
    expect((await readFile(file, 'utf8')).split('<record>').length - 1).toBe(120);
    expect(listener.log.lines()).toContainEqual(
      expect.objectContaining({ eventId: summary.eventId }),
    );
  });
});
