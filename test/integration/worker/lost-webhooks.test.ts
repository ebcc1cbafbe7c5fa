import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox, Sandbox } from '@svcws/sandbox';
import { WorkerConfig } from '../../../src/config';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { createLogger } from '../../../src/logger';
import { createWorkerMetrics } from '../../../src/metrics/worker-metrics';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { recordsPath } from '../../../src/worker/job-end/records-path';
import { recoveredEventId } from '../../../src/worker/job-end/recovered-job-end';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_SECRET, listenerUnderTest } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { TEST_REDIS_URL, obliterateQueue } from '../../helpers/redis';

const INSTITUTION = '01SVC_INST';

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The sandbox loses one webhook in two on its way to the real listener; the real worker, with its
 * reconciliation every second, still processes every import's job_end once.
 */
describe('a platform that loses webhooks: the reconciliation makes up for them', () => {
  let listener: ListenerUnderTest;
  let server: Server;
  let sandbox: Sandbox;
  let running: RunningSandbox;
  let worker: WorkerProcess;
  let recordsDir: string;
  let redis: Redis;
  const log = captureLogger();
  const connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
  const metrics = createWorkerMetrics({ defaultMetrics: false });

  beforeAll(async () => {
    listener = listenerUnderTest();
    server = createServer(listener.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const listenerUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/webhooks`;
    sandbox = createSandbox({
      logger: createLogger({ level: 'silent', name: 'sandbox' }),
      config: {
        SANDBOX_JOB_DURATION_MS: 0,
        SANDBOX_RECORD_COUNT: 4,
        SANDBOX_WEBHOOK_LOSE_ONE_IN: 2,
      },
    });
    running = await sandbox.start(0);
    const registered = await sandbox.webhooks.register({
      url: listenerUrl,
      secret: TEST_SECRET,
      format: 'json',
    });
    expect(registered.ok).toBe(true);
    recordsDir = await mkdtemp(join(tmpdir(), 'svc-lost-'));
    redis = new Redis(TEST_REDIS_URL);
    const config = WorkerConfig.parse({
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: listener.queueName,
      SVC_BASE_URL: running.url,
      SVC_API_KEY: 'sandbox-key',
      SVC_RATE_PER_SECOND: '1000',
      RECORDS_DIR: recordsDir,
      RECONCILE_INTERVAL_SECONDS: '1',
      INSTITUTION_CODE: INSTITUTION,
    });
    worker = createWorkerProcess({ config, logger: log.logger, connection, env: {}, metrics });
  });

  afterAll(async () => {
    await worker.close();
    const keys = await redis.keys(`${listener.queueName}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await obliterateQueue(`${listener.queueName}-reconcile`);
    redis.disconnect();
    await closeRedis(connection);
    await new Promise((resolve) => server.close(resolve));
    await listener.close();
    await running.close();
    sandbox.stop();
    await rm(recordsDir, { recursive: true, force: true });
  });

  const fileOf = (instanceId: string) =>
    recordsPath(recordsDir, {
      institution: INSTITUTION,
      jobId: 'S7781',
      instanceId,
      lineType: 'TOTAL_RECORDS_IMPORTED',
      format: 'XML',
    });

  it('stores the records of the delivered and of the lost job_end, once each; the late webhook is not processed again', async () => {
    const job = sandbox.jobs().job('S7781');
    if (job === undefined) throw new Error('no S7781');
    const ids = [0, 1].map(
      () => sandbox.jobs().run(job, { submittedBy: 'sandbox', durationMs: 0 }).id,
    );
    const outcomes = await until(async () => {
      const rows = sandbox.webhooks.deliveries();
      return rows.length === 2 ? rows.map((row) => row.outcome).sort() : undefined;
    });
    // The runs end in order: the first job_end is the first published (sent), the second lost.
    expect(outcomes).toEqual(['delivered', 'lost']);
    const [deliveredId = '', lostId = ''] = ids;

    const recovered = await until(async () => {
      const one = await listener.events.queue.getJob(jobIdForEvent(recoveredEventId(lostId)));
      return one !== undefined && (await one.isCompleted()) ? one : undefined;
    });
    expect(recovered.data).toMatchObject({ meta: { recovered: true } });
    for (const id of ids)
      expect((await readFile(fileOf(id), 'utf8')).split('<record>')).toHaveLength(5);
    expect(
      await listener.events.queue.getJob(jobIdForEvent(recoveredEventId(deliveredId))),
    ).toBeUndefined();

    // The platform sends the lost one late (a retry, or an operator's resend).
    sandbox.webhooks.loseOneIn(0);
    const late = (await fetch(`${running.url}/sandbox/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'job_end', instance_id: lostId }),
    }).then((answer) => answer.json())) as { event: { id: string } };
    const lateJob = await until(async () => {
      const one = await listener.events.queue.getJob(jobIdForEvent(late.event.id));
      if (one === undefined || !(await one.isCompleted())) return undefined;
      // Read again: the job may have completed after the read above, which has no return value.
      return listener.events.queue.getJob(jobIdForEvent(late.event.id));
    });
    expect(lateJob.returnvalue).toEqual({ outcome: 'duplicate', instanceId: lostId });
    // The lost one was recovered once. Near midnight UTC the run's window (whole days, spec §4.3)
    // also reaches the sandbox's past runs of the day before, which no webhook announced either:
    // they are recovered too, and the counter counts each recovery once.
    const recoveries = log.lines().filter((line) => line.msg === 'job_end recovered: queued');
    expect(recoveries.filter((line) => line.instanceId === lostId)).toHaveLength(1);
    expect(recoveries.filter((line) => line.instanceId === deliveredId)).toHaveLength(0);
    const counted = await metrics.registry.getSingleMetricAsString('svcws_recovered_events_total');
    expect(counted).toContain(
      `svcws_recovered_events_total{institution="${INSTITUTION}"} ${String(recoveries.length)}`,
    );
  });
});
