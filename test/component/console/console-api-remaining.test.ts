import type { RedisClient } from '../../../src/redis/redis-client';
import request from 'supertest';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { apiRemainingKey, createApiRemainingWriter } from '../../../src/worker/api-remaining-store';
import { TEST_REDIS_URL } from '../../helpers/redis';
import { eventually, silentLogger } from '../routes/support/route-events';
import { startConsoleOnRedis } from './support/console-on-redis';
import type { ConsoleOnRedis } from './support/console-on-redis';

const OPERATOR = 'operator-token-of-the-remaining-test';
const bearer = { Authorization: `Bearer ${OPERATOR}` };

describe("the overview's API calls remaining: the last figure the worker stored in Redis", () => {
  let sut: ConsoleOnRedis;
  let queueName: string;
  let consoleConnection: RedisClient;
  let workerConnection: RedisClient;
  let consoleProcess: ConsoleProcess;

  beforeEach(async () => {
    sut = await startConsoleOnRedis({
      name: 'remaining',
      tokens: [{ name: 'ops', token: OPERATOR, role: 'operator' }],
    });
    ({ queueName, connection: consoleConnection, consoleProcess } = sut);
    workerConnection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
  });
  afterEach(async () => {
    await consoleConnection.del(apiRemainingKey(queueName));
    await closeRedis(workerConnection);
    await sut.close();
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
