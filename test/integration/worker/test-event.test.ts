import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { runCli } from '../../../src/cli/run-cli';
import { SAMPLE_KINDS } from '../../../src/cli/sample-events';
import { WorkerConfig } from '../../../src/config';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { findJob } from '../../../src/operations/find-job';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import type { RunningWorker } from '../../../src/worker/create-worker';
import { captureIo } from '../../component/cli/cli-io-capture';
import { eventually } from '../../component/routes/support/route-events';
import { captureLogger } from '../../helpers/capture-logger';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { TEST_REDIS_URL, obliterateQueue } from '../../helpers/redis';

jest.setTimeout(90_000);

describe('send-test-event: a marked event through the listener, the signature and the queue, harmless', () => {
  let listener: ListenerUnderTest;
  let server: Server;
  let worker: RunningWorker;
  let connection: ReturnType<typeof openWorkerConnection>;
  let receiver: RecordingHttpReceiver;
  let platformApi: RecordingHttpReceiver;
  let dir: string;

  beforeAll(async () => {
    receiver = await startRecordingHttpReceiver(200);
    // Where the worker's API client points: any request here would be an API call.
    platformApi = await startRecordingHttpReceiver(500);
    dir = await mkdtemp(join(tmpdir(), 'svc-test-event-'));
    listener = listenerUnderTest();
    server = listener.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const routesFile = join(dir, 'routes.yaml');
    await writeFile(
      routesFile,
      // Both take every action: only the opted-in one may receive a test event.
      'routes:\n' +
        `  - name: every-event\n    to: { http: { url: "${receiver.origin}/hooks/every-event" } }\n` +
        `  - name: checks\n    testEvents: true\n    to: { http: { url: "${receiver.origin}/hooks/checks" } }\n`,
    );
    const log = captureLogger();
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
    worker = createWorkerProcess({
      connection,
      config: WorkerConfig.parse({
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_NAME: listener.queueName,
        SVC_BASE_URL: platformApi.origin,
        SVC_API_KEY: 'unused',
        RECORDS_DIR: join(dir, 'records'),
        ROUTES_FILE: routesFile,
        WORKER_METRICS_PORT: '0',
      }),
      logger: log.logger,
      env: {},
    });
  });

  afterAll(async () => {
    await worker?.close();
    await closeRedis(connection);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener?.close();
    await receiver?.close();
    await platformApi?.close();
    for (const route of ['every-event', 'checks']) {
      await obliterateQueue(routeQueueName(listener.queueName, route));
    }
    await rm(dir, { recursive: true, force: true });
  });

  /** The failed-jobs figure alert SvcwsEventJobsFailed reads: bullmq_job_count{state="failed"}. */
  const failedJobsMetric = async (): Promise<string | undefined> => {
    const port = (server.address() as AddressInfo).port;
    const text = await (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text();
    const series = `bullmq_job_count{queue="${listener.queueName}", state="failed"} `;
    return text
      .split('\n')
      .find((line) => line.startsWith(series))
      ?.slice(series.length);
  };

  it.each(SAMPLE_KINDS.map((kind) => [kind]))(
    'completes a sample %s as a test event: no failed job, no API call, no delivery but to a route that opts in',
    async (kind) => {
      const port = (server.address() as AddressInfo).port;
      const io = captureIo({ REDIS_URL: TEST_REDIS_URL, QUEUE_NAME: listener.queueName });
      const code = await runCli(
        [
          'send-test-event',
          ...['--url', `http://127.0.0.1:${String(port)}/webhooks`],
          ...['--secret', TEST_SECRET, '--sample', kind],
        ],
        io,
      );
      expect(io.stderr()).toBe('');
      expect(code).toBe(0);
      const out = io.stdout();
      const eventId = /queued event (svcws-test-\S+)/.exec(out)?.[1] ?? '';
      expect(eventId).not.toBe('');
      expect(out).toContain(`→ queued: job ${jobIdForEvent(eventId)}`);
      expect(out).toContain('✓ completed as a test event');
      const queue = listener.events.queue;
      expect((await findJob(queue, jobIdForEvent(eventId)))?.returnvalue).toEqual({
        outcome: 'test event',
      });
      expect(await queue.getFailedCount()).toBe(0);
      expect(await failedJobsMetric()).toBe('0');
      // The route that opts in (testEvents: true) receives it; the other takes no job for it.
      const deliveredTo = () =>
        receiver.requests.filter((one) => one.body.includes(eventId)).map((one) => one.path);
      await eventually(() => deliveredTo().length > 0, 'the opted-in route delivered');
      expect(deliveredTo()).toEqual(['/hooks/checks']);
      const everyEvent = new Queue(routeQueueName(listener.queueName, 'every-event'), {
        connection,
      });
      try {
        const counts = await everyEvent.getJobCounts();
        expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(0);
      } finally {
        await everyEvent.close();
      }
      expect(platformApi.requests).toEqual([]);
    },
  );
});
