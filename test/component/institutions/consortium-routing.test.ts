import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { WorkerConfig } from '../../../src/config';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { institutionQueueName } from '../../../src/institutions/institution-queue-name';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { eventually, routeEvent } from '../routes/support/route-events';

/** The worker process turns the round-robin on by itself when it serves several institutions. */
describe('a consortium worker routes fairly across its members', () => {
  const log = captureLogger();
  let dir: string;
  let receiver: RecordingHttpReceiver;
  let worker: WorkerProcess | undefined;
  const connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
  const base = uniqueQueueName('consortium-routing');
  const codes = ['01AAA_INST', '01BBB_INST'];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-consortium-routing-'));
    receiver = await startRecordingHttpReceiver(200);
  });
  afterAll(async () => {
    await worker?.close();
    await connection.del(`bull:${routeQueueName(base, 'shared')}:fair`);
    await closeRedis(connection);
    for (const name of [
      ...codes.map((code) => institutionQueueName(base, code)),
      routeQueueName(base, 'shared'),
    ]) {
      await obliterateQueue(name);
    }
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("gives a member's route jobs a round-robin priority", async () => {
    const institutions = join(dir, 'institutions.yaml');
    await writeFile(
      institutions,
      `institutions:\n${codes
        .map(
          (code) =>
            `  - code: ${code}\n    webhookSecret: secret-of-${code}\n    apiKey: key-${code}\n` +
            `    baseUrl: http://127.0.0.1:1\n`,
        )
        .join('')}`,
    );
    const routes = join(dir, 'routes.yaml');
    await writeFile(
      routes,
      `routes:\n  - name: shared\n    to: { http: { url: "${receiver.origin}/in" } }\n`,
    );
    worker = createWorkerProcess({
      config: WorkerConfig.parse({
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_NAME: base,
        INSTITUTIONS_FILE: institutions,
        ROUTES_FILE: routes,
        ROUTE_INLINE: 'off',
        RECORDS_DIR: join(dir, 'records'),
      }),
      logger: log.logger,
      connection,
      env: {},
    });
    const memberQueue = new Queue(institutionQueueName(base, '01AAA_INST'), {
      connection: { url: TEST_REDIS_URL },
    });
    const event = routeEvent({ institution: { value: '01AAA_INST' } });
    const { jobId } = await createEventEnqueuer({
      queue: memberQueue,
      dedupWindowHours: 1,
      attempts: 1,
      backoffDelayMs: 50,
    })(event);
    await memberQueue.close();
    await eventually(() => receiver.requests.length === 1, 'the delivery');

    const routeQueue = new Queue(routeQueueName(base, 'shared'), {
      connection: { url: TEST_REDIS_URL },
    });
    const delivered = await routeQueue.getJob(`01AAA_INST-${jobId}`);
    await routeQueue.close();
    expect(delivered?.priority).toBe(1);

    // The run's end line names the member once (the member's logger binds it: not twice), and
    // the routes it matched; the queued attempt names its route job.
    await eventually(
      () => log.lines().some((line) => line.msg === 'event run ended' && line.eventId === event.id),
      'the run end line',
    );
    const ended = log
      .text()
      .split('\n')
      .find((line) => line.includes('"event run ended"') && line.includes(event.id));
    expect(ended?.match(/"institution":/g)).toHaveLength(1);
    expect(JSON.parse(ended ?? '{}')).toMatchObject({
      level: 30,
      institution: '01AAA_INST',
      action: 'loan',
      event: 'LOAN_CREATED',
      queueJobId: jobId,
      outcome: 'completed',
      routes: ['shared'],
      attempts: 1,
      maxAttempts: 1,
    });
    await eventually(
      () => log.lines().some((line) => line.msg === 'delivered' && line.eventId === event.id),
      'the delivered line',
    );
    expect(
      log.lines().find((line) => line.msg === 'delivered' && line.eventId === event.id),
    ).toMatchObject({
      institution: '01AAA_INST',
      outcome: 'delivered',
      queueJobId: `01AAA_INST-${jobId}`,
      latencyMs: expect.any(Number) as number,
    });
  });
});
