import { Redis } from 'ioredis';
import { runCli } from '../../../src/cli/run-cli';
import { createHistoryRecorder } from '../../../src/history/create-history-recorder';
import { createHistoryWriter } from '../../../src/history/create-history-writer';
import { historyStreamKey } from '../../../src/history/history-stream-key';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { TEST_HISTORY_KEY, fixtureEvent } from '../../helpers/history-events';
import { recordTwoAttempts } from '../../helpers/record-two-attempts';
import { TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';
import { captureIo } from './cli-io-capture';

describe('npm run events -- history show', () => {
  const schema = uniqueSchema('clishow');
  const queueName = uniqueQueueName('history-show');
  const env = {
    DATABASE_URL: TEST_DATABASE_URL,
    HISTORY_KEY: TEST_HISTORY_KEY,
    HISTORY_SCHEMA: schema,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
  };
  const loan = fixtureEvent('loan-created');
  const jobEnd = fixtureEvent('job-end');

  beforeAll(async () => {
    expect(await runCli(['history', 'migrate'], captureIo(env))).toBe(0);
    const redis = new Redis(TEST_REDIS_URL);
    const db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema });
    try {
      const recorder = createHistoryRecorder({
        redis,
        streamKey: historyStreamKey(queueName),
        historyKey: TEST_HISTORY_KEY,
        bodies: 'none',
        maxBacklog: 100,
      });
      await recorder.event(loan);
      await recorder.event(jobEnd);
      await recordTwoAttempts(recorder, loan, {
        route: 'loans',
        jobId: 'route-job-7',
        second: 'delivered',
      });
      await recorder.jobEnd({
        event: jobEnd,
        outcome: 'completed',
        files: [
          { path: '/records/a.mrc', bytes: 2048, records: 2 },
          { path: '/records/b.xml', bytes: 10 },
        ],
      });
      if (db === undefined) throw new Error('no database');
      const writer = createHistoryWriter({ redis, db, streamKey: historyStreamKey(queueName) });
      while ((await writer.drainOnce()) > 0);
    } finally {
      await redis.del(historyStreamKey(queueName));
      redis.disconnect();
      await db?.close();
    }
  });
  afterAll(async () => {
    await dropSchema(schema);
  });

  it('gives a loan’s journey in order, each attempt numbered and inline or queued', async () => {
    const io = captureIo(env);
    expect(await runCli(['history', 'show', loan.id, '--json'], io)).toBe(0);
    const steps = JSON.parse(io.stdout()) as Record<string, unknown>[];
    expect(steps.map((step) => [step.kind, step.attempt, step.path, step.jobId])).toEqual([
      ['received', undefined, undefined, undefined],
      ['attempt', 1, 'inline', null],
      ['attempt', 2, 'queued', 'route-job-7'],
    ]);
    const text = captureIo(env);
    expect(await runCli(['history', 'show', loan.id], text)).toBe(0);
    expect(text.stdout()).toMatch(/attempt 1 \(inline\) {2}retrying .*ECONNREFUSED/);
  });

  it('lists a job_end’s files one a line (path, bytes, records), not as JSON', async () => {
    const io = captureIo(env);
    expect(await runCli(['history', 'show', jobEnd.id], io)).toBe(0);
    expect(io.stdout()).toMatch(
      /job_end {2}completed\n {4}\/records\/a\.mrc {2}2048 bytes {2}2 records\n {4}\/records\/b\.xml {2}10 bytes/,
    );
    expect(io.stdout()).not.toContain('"path"');
  });
});
