import { Queue, Worker } from 'bullmq';
import request from 'supertest';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { TEST_REDIS_URL } from '../../helpers/redis';
import { eventually } from '../routes/support/route-events';
import { startConsoleOnRedis } from './support/console-on-redis';
import type { ConsoleOnRedis } from './support/console-on-redis';

const OPERATOR = 'operator-token-of-the-institution-test';
const bearer = { Authorization: `Bearer ${OPERATOR}` };

describe('the console shows the institution code every event carries, with one institution too', () => {
  let sut: ConsoleOnRedis;
  let queueName: string;
  let consoleProcess: ConsoleProcess;

  beforeEach(async () => {
    sut = await startConsoleOnRedis({
      name: 'institution',
      tokens: [{ name: 'ops', token: OPERATOR, role: 'operator' }],
    });
    ({ queueName, consoleProcess } = sut);
  });
  afterEach(async () => {
    await sut.close();
  });

  it('names the code on the overview and in the failed event jobs, not "(single institution)" or a dash', async () => {
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    const worker = new Worker(
      queueName,
      () => {
        throw new Error('refused for the test');
      },
      { connection: { url: TEST_REDIS_URL } },
    );
    try {
      await queue.add(
        'loan',
        { id: 'evt-inst-1', action: 'loan', institution: { value: '01SVC_INST' } },
        { jobId: 'evt-inst-1', attempts: 1 },
      );
      await eventually(async () => (await queue.getFailedCount()) === 1, 'the job failed');
    } finally {
      await worker.close();
      await queue.close();
    }

    const api = (path: string) => request(consoleProcess.app).get(path).set(bearer).expect(200);
    expect((await api('/api/v1/overview')).body.institutions[0]).toMatchObject({
      institution: null,
      eventInstitution: '01SVC_INST',
    });
    const overview = (await api('/')).text;
    expect(overview).toContain('01SVC_INST');
    expect(overview).not.toContain('(single institution');
    const failed = (await api('/failed')).text;
    expect(failed).toMatch(/<td>\s*01SVC_INST\s*<\/td>/);
  });

  it('shows the jobs delayed for a retry beside the waiting ones, not "Waiting 0"', async () => {
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    try {
      for (const id of ['evt-delayed-1', 'evt-delayed-2', 'evt-delayed-3']) {
        await queue.add(
          'loan',
          { id, institution: { value: '01SVC_INST' } },
          { jobId: id, delay: 600_000 },
        );
      }
    } finally {
      await queue.close();
    }

    const api = (path: string) => request(consoleProcess.app).get(path).set(bearer).expect(200);
    expect((await api('/api/v1/overview')).body.institutions[0]).toMatchObject({
      waiting: 0,
      delayed: 3,
    });
    expect((await api('/')).text).toContain('0 (+3 delayed)');
  });
});
