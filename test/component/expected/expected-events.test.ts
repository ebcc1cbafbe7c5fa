import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { Redis } from 'ioredis';
import { parseExpectedEventsFile } from '../../../src/expected/expected-events-file';
import { expectedLastKey, expectedSinceKey } from '../../../src/expected/expected-events-watch';
import type { ExpectedEventsOfQueue } from '../../../src/expected/expected-events-watch';
import { readExpectedEvents } from '../../../src/expected/read-expected-events';
import { registerExpectedEventsMetrics } from '../../../src/metrics/expected-events-metrics';
import { TEST_REDIS_URL } from '../../helpers/redis';
import { workerUnderTest } from '../worker/support/worker-harness';
import type { WorkerUnderTest } from '../worker/support/worker-harness';

const INSTITUTION = '01SVC_INST';
const RULES =
  'expected:\n  - { jobEnd: S7781, everyHours: 24 }\n  - { kind: loan, everyHours: 6 }\n';

describe('expected events, noted by the real worker in Redis and exported as metrics', () => {
  let sut: WorkerUnderTest;
  let redis: Redis;

  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-expected-'));
    const file = join(dir, 'expected.yaml');
    await writeFile(file, RULES);
    sut = await workerUnderTest({
      worker: {
        INSTITUTION_CODE: INSTITUTION,
        RECONCILE_INTERVAL_SECONDS: '0',
        EXPECTED_EVENTS_FILE: file,
      },
    });
    redis = new Redis(TEST_REDIS_URL);
  });
  afterEach(async () => {
    await redis.del(expectedLastKey(sut.queueName), expectedSinceKey(sut.queueName));
    redis.disconnect();
    await sut.close();
    await rm(dir, { recursive: true, force: true });
  });

  const watchOf = (): ExpectedEventsOfQueue => ({
    institution: INSTITUTION,
    queueName: sut.queueName,
    rules: parseExpectedEventsFile(RULES).expected,
  });

  it('notes the job_end of the expected job when the worker takes it; the rule never met is as old as its watch', async () => {
    const instanceId = await sut.runJob('S7781', 3);
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId));
    const started = Date.now();
    sut.startWorker();
    await sut.settled(jobId);

    const states = await readExpectedEvents(redis, [watchOf()], new Date(started + 3_600_000));

    const [jobEnd, loan] = states;
    expect(jobEnd).toMatchObject({
      institution: INSTITUTION,
      rule: 'job_end:S7781',
      everyHours: 24,
      late: false,
    });
    expect(jobEnd?.lastSeenAt?.getTime()).toBeGreaterThanOrEqual(started);
    expect(loan).toMatchObject({ rule: 'kind:loan', lastSeenAt: undefined, late: false });
    expect(loan?.ageSeconds).toBeGreaterThan(3590);
    expect(loan?.ageSeconds).toBeLessThanOrEqual(3600 + 30);
  });

  it('calls a rule late once its hours pass, and exports its age and threshold with bounded labels', async () => {
    const now = Date.now();
    await redis.hset(expectedLastKey(sut.queueName), 'job_end:S7781', String(now - 25 * 3_600_000));
    await redis.hset(expectedSinceKey(sut.queueName), 'kind:loan', String(now - 3_600_000));
    const registry = new Registry();
    registerExpectedEventsMetrics(registry, () =>
      readExpectedEvents(redis, [watchOf()], new Date(now)),
    );

    const text = await registry.metrics();

    const states = await readExpectedEvents(redis, [watchOf()], new Date(now));
    expect(states.map((state) => [state.rule, state.late])).toEqual([
      ['job_end:S7781', true],
      ['kind:loan', false],
    ]);
    expect(text).toContain(
      `svcws_expected_event_age_seconds{institution="${INSTITUTION}",rule="job_end:S7781"} 90000`,
    );
    expect(text).toContain(
      `svcws_expected_event_age_seconds{institution="${INSTITUTION}",rule="kind:loan"} 3600`,
    );
    expect(text).toContain(
      `svcws_expected_event_threshold_seconds{institution="${INSTITUTION}",rule="job_end:S7781"} 86400`,
    );
    expect(text).toContain(
      `svcws_expected_event_threshold_seconds{institution="${INSTITUTION}",rule="kind:loan"} 21600`,
    );
  });
});
