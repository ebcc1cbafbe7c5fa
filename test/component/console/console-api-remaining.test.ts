import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { ConsoleConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { createConsoleProcess } from '../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { apiRemainingKey, createApiRemainingWriter } from '../../../src/worker/api-remaining-store';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { eventually, silentLogger } from '../routes/support/route-events';

const OPERATOR = 'operator-token-of-the-remaining-test';
const bearer = { Authorization: `Bearer ${OPERATOR}` };

describe("the overview's API calls remaining: the last figure the worker stored in Redis", () => {
  let dir: string;
  let queueName: string;
  let consoleConnection: Redis;
  let workerConnection: Redis;
  let consoleProcess: ConsoleProcess;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-remaining-'));
    queueName = uniqueQueueName('remaining');
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: ops, sha256: ${sha256Hex(OPERATOR)}, role: operator }\n`,
    );
    const env = {
      QUEUE_NAME: queueName,
      REDIS_URL: TEST_REDIS_URL,
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
    };
    consoleConnection = openProducerConnection(TEST_REDIS_URL);
    workerConnection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: captureLogger().logger,
      connection: consoleConnection,
      env,
    });
    if (consoleConnection.status !== 'ready') await once(consoleConnection, 'ready');
  });
  afterEach(async () => {
    await consoleProcess.close();
    await consoleConnection.del(apiRemainingKey(queueName));
    await obliterateQueue(queueName);
    await closeRedis(workerConnection);
    await closeRedis(consoleConnection);
    await rm(dir, { recursive: true, force: true });
  });

  const overview = async (): Promise<{ apiCallsRemaining: number | null }> =>
    (await request(consoleProcess.app).get('/api/v1/overview').set(bearer).expect(200)).body
      .institutions[0];

  it('says it is not known before the worker stored one, then shows the latest the worker got', async () => {
    expect((await overview()).apiCallsRemaining).toBeNull();
    const before = await request(consoleProcess.app).get('/').set(bearer).expect(200);
    expect(before.text).toContain('not known yet');
    expect(before.text).not.toContain('svc_api_remaining');

    const store = createApiRemainingWriter(workerConnection, queueName);
    for (const remaining of [5000, 4999, 4998]) store(remaining, undefined);

    await eventually(async () => (await overview()).apiCallsRemaining === 4998, 'the latest');
    const page = await request(consoleProcess.app).get('/').set(bearer).expect(200);
    expect(page.text).toMatch(/<td>\s*4998\s*<\/td>/);
  });
});
