import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox } from '@svcws/sandbox';
import type { RedisClient } from '../../../src/redis/redis-client';
import request from 'supertest';
import { ConsoleConfig, WorkerConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { createLogger } from '../../../src/logger';
import { createConsoleProcess } from '../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { apiRemainingKey, readApiRemaining } from '../../../src/worker/api-remaining-store';
import { eventually } from '../../component/routes/support/route-events';
import { captureLogger } from '../../helpers/capture-logger';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { TEST_REDIS_URL } from '../../helpers/redis';

jest.setTimeout(90_000);

const OPERATOR = 'operator-token-of-the-api-remaining-test';
/** The sandbox's calls a day: every call it answers counts one down in X-Svc-Api-Remaining. */
const BUDGET = 5000;

describe('the API budget the platform answered: stored by a real worker, shown by the console', () => {
  let sandbox: RunningSandbox;
  let listener: ListenerUnderTest;
  let server: Server;
  let worker: WorkerProcess;
  let workerConnection: RedisClient;
  let consoleConnection: RedisClient;
  let consoleProcess: ConsoleProcess;
  let dir: string;
  const log = captureLogger();

  beforeAll(async () => {
    sandbox = await createSandbox({
      logger: createLogger({ level: 'silent', name: 'sandbox' }),
      config: { SANDBOX_JOB_DURATION_MS: 0, SANDBOX_DAILY_BUDGET: BUDGET },
    }).start(0);
    listener = listenerUnderTest();
    server = listener.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    dir = await mkdtemp(join(tmpdir(), 'svc-api-remaining-'));
    workerConnection = openWorkerConnection(TEST_REDIS_URL, log.logger);
    worker = createWorkerProcess({
      connection: workerConnection,
      config: WorkerConfig.parse({
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_NAME: listener.queueName,
        SVC_BASE_URL: sandbox.url,
        SVC_API_KEY: 'sandbox-key',
        RECORDS_DIR: join(dir, 'records'),
        // No reconciliation: the job_end's handler makes every call the sandbox answers.
        RECONCILE_INTERVAL_SECONDS: '0',
      }),
      logger: log.logger,
      env: {},
    });
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: ops, sha256: ${sha256Hex(OPERATOR)}, role: operator }\n`,
    );
    consoleConnection = openProducerConnection(TEST_REDIS_URL);
    const env = {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: listener.queueName,
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
    };
    consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: captureLogger().logger,
      connection: consoleConnection,
      env,
    });
  });

  afterAll(async () => {
    await consoleProcess?.close();
    await worker?.close();
    await consoleConnection.del(apiRemainingKey(listener.queueName));
    await closeRedis(consoleConnection);
    await closeRedis(workerConnection);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener?.close();
    await sandbox?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const admin = (path: string, body: unknown) =>
    fetch(`${sandbox.url}/sandbox${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('keeps the last X-Svc-Api-Remaining of its calls in Redis, and the overview shows it', async () => {
    const bearer = { Authorization: `Bearer ${OPERATOR}` };
    const overview = await request(consoleProcess.app).get('/').set(bearer).expect(200);
    expect(overview.text).toContain('not known yet');
    const port = (server.address() as AddressInfo).port;
    const webhook = { url: `http://127.0.0.1:${String(port)}/webhooks`, secret: TEST_SECRET };
    expect((await admin('/webhooks', webhook)).status).toBe(201);

    // A finished import run: its job_end makes the worker call the API for the run and its records.
    expect((await admin('/jobs/S7781/run', { records: 3, duration_ms: 0 })).status).toBe(201);
    let stored: Record<string, unknown> | undefined;
    await eventually(() => {
      stored = log.lines().find((line) => line.msg === 'job_end: records stored');
      return stored !== undefined;
    }, 'the job_end handled');
    const calls = Number(stored?.apiCalls);
    expect(calls).toBeGreaterThan(0);

    // Every call counts one down: the last answer said BUDGET - calls.
    const answered = BUDGET - calls;
    await eventually(
      async () =>
        (await readApiRemaining(workerConnection, listener.queueName, undefined)) === answered,
      `${String(answered)} stored`,
    );
    // The sandbox agrees: the next call is answered one less.
    const next = await fetch(`${sandbox.url}/svcws/v1/conf/jobs/S7781?apikey=sandbox-key`);
    expect(next.headers.get('x-svc-api-remaining')).toBe(String(answered - 1));

    const api = await request(consoleProcess.app).get('/api/v1/overview').set(bearer).expect(200);
    expect(api.body.institutions[0]).toMatchObject({ apiCallsRemaining: answered });
    const page = await request(consoleProcess.app).get('/').set(bearer).expect(200);
    expect(page.text).toMatch(new RegExp(`<td>\\s*${String(answered)}\\s*</td>`));
  });
});
