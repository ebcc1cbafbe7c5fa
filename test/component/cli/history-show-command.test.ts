import { Redis } from 'ioredis';
import { jobEndOutcome } from '../../helpers/job-end-outcome';
import { runCli } from '../../../src/cli/run-cli';
import { createHistoryRecorder } from '../../../src/history/create-history-recorder';
import { createHistoryWriter } from '../../../src/history/create-history-writer';
import { historyStreamKey } from '../../../src/history/history-stream-key';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { TEST_HISTORY_KEY, fixtureEvent } from '../../helpers/history-events';
import { recordRun } from '../../helpers/record-run';
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
      await recordRun(recorder, loan, { jobId: loan.id, endedAt: new Date(Date.now() + 100) });
      // The job_end's worker died before the end of its run: no end is recorded.
      await recordRun(recorder, jobEnd, { jobId: jobEnd.id });
      await recorder.outcome(
        jobEndOutcome(jobEnd, {
          outcome: 'completed',
          files: [
            { path: '/records/a.mrc', bytes: 2048, records: 2 },
            { path: '/records/b.xml', bytes: 10 },
          ],
        }),
      );
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
      ['queued', undefined, undefined, loan.id],
      ['taken', undefined, undefined, loan.id],
      ['attempt', 1, 'inline', null],
      ['attempt', 2, 'queued', 'route-job-7'],
      ['finished', undefined, undefined, loan.id],
    ]);
    const times = steps.map((step) => Date.parse(String(step.at)));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(steps[1]).toMatchObject({ by: 'listener' });
    expect(steps[2]).toMatchObject({ run: 1, endedAt: steps[5]?.at });
    expect(steps[5]).toMatchObject({ outcome: 'completed', run: 1 });
    const text = captureIo(env);
    expect(await runCli(['history', 'show', loan.id], text)).toBe(0);
    expect(text.stdout()).toMatch(/attempt 1 \(inline\) {2}retrying .*ECONNREFUSED/);
    expect(text.stdout()).toMatch(
      /received .*\n.* {2}queued {2}by the listener {2}job \S+\n.* {2}taken {2}run 1\n/,
    );
    expect(text.stdout()).toMatch(/ {2}finished {2}completed\n?$/);
  });

  it('says a run has no end when none was recorded, rather than giving a time', async () => {
    const io = captureIo(env);
    expect(await runCli(['history', 'show', jobEnd.id, '--json'], io)).toBe(0);
    const steps = JSON.parse(io.stdout()) as Record<string, unknown>[];
    expect(steps.map((step) => step.kind)).toEqual(['received', 'queued', 'taken', 'outcome']);
    expect(steps[2]).toMatchObject({ endedAt: null });
    const text = captureIo(env);
    expect(await runCli(['history', 'show', jobEnd.id], text)).toBe(0);
    expect(text.stdout()).toContain(
      'taken  run 1  (no end recorded: still running, or its worker stopped)',
    );
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
